// POST /api/v1/stt/transcribe (universal), /api/v1/stt/cipher/transcribe, /api/v1/stt/lucid/transcribe.
// The edge only: read the multipart upload and its fields -> one call to the STT service
// (src/stt/service.ts: model, language, decode, credits, recognition, settlement) -> render the
// transcript in the requested format, with the headers.

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { errorResponses } from '../../http/schemas.js';
import { parseSttFields } from '../../stt/request.js';
import type { SttEndpoint } from '../../registry/model-registry.js';
import type { SttService } from '../../stt/service.js';
import { renderTranscription, RESPONSE_CONTENT_TYPES } from '../../stt/response-formats.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import { readUpload } from '../../http/upload.js';

export interface SttRouteOptions {
  stt: SttService;
}

export const sttRoutes: FastifyPluginAsync<SttRouteOptions> = async (app, { stt }) => {
  // Registered here, not on the whole app: its request and response hooks then run for uploads
  // only, not for every API request.
  await app.register(multipart, { throwFileSizeLimit: true });

  const createTranscription = (endpoint: SttEndpoint) =>
    async function createTranscription(request: FastifyRequest, reply: FastifyReply) {
      const started = performance.now();
      stt.checkAccess(request.auth, 'batch');
      await stt.checkBalanceBeforeUpload(request.auth);
      const { fields, file } = await readUpload(request);
      const options = parseSttFields(fields, endpoint);
      const audio = file ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : null;
      // The client going away stops a long recording's remaining pieces (src/stt/long-audio/).
      const t = await stt.transcribe(request.auth, { requestId: request.id, endpoint, options, audio }, abortOnClose(reply.raw));
      const body = renderTranscription(options, t);
      return reply
        .header('Content-Type', RESPONSE_CONTENT_TYPES[options.responseFormat])
        .header('X-Processing-Time-Ms', String(Math.round(performance.now() - started)))
        .header('X-Credits-Used', String(t.credits))
        .header('X-Credits-Remaining', String(t.balance))
        .send(typeof body === 'string' ? body : JSON.stringify(body));
    };

  const doc = (summary: string, fields: string) => ({
    tags: ['stt'],
    summary,
    description: `multipart/form-data with \`file\` (audio, at most 25 MB: WAV, MP3, FLAC, Ogg Vorbis/Opus, WebM/Opus, M4A/AAC) and the fields ${fields}.`,
    consumes: ['multipart/form-data'],
    security: [{ apiKey: [] }],
    response: errorResponses(402, 413, 422),
  });
  app.post(
    '/stt/transcribe',
    {
      schema: doc(
        'Transcribe with any model (Cipher and Lucid fields accepted)',
        'model, language, response_format, prompt, timestamp_granularities, diarize, smart_format, punctuate, keywords, redact (pci, ssn, numbers), profanity_filter',
      ),
    },
    createTranscription('universal'),
  );
  app.post(
    '/stt/cipher/transcribe',
    {
      schema: doc(
        'Transcribe with cipher-fast or cipher-max',
        'model, language, response_format, prompt, timestamp_granularities, redact (pci, ssn, numbers), profanity_filter',
      ),
    },
    createTranscription('cipher'),
  );
  app.post(
    '/stt/lucid/transcribe',
    {
      schema: doc(
        'Transcribe with a Lucid model (default lucid-mono)',
        'model, language, response_format, diarize, smart_format, punctuate, keywords, redact (pci, ssn, numbers), profanity_filter',
      ),
    },
    createTranscription('lucid'),
  );
};
