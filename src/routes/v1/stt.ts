// POST /api/v1/stt/transcribe (universal), /api/v1/stt/cipher/transcribe, /api/v1/stt/lucid/transcribe.
// The edge only: read the multipart upload and its fields -> one call to the STT service
// (src/stt/service.ts: model, language, decode, credits, recognition, settlement) -> render the
// transcript in the requested format, with the headers.

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { ApiError } from '../../errors.js';
import { errorResponses } from '../../http/schemas.js';
import { parseSttFields } from '../../stt/request.js';
import type { SttEndpoint } from '../../registry/model-registry.js';
import type { SttService } from '../../stt/service.js';
import { render, RESPONSE_CONTENT_TYPES } from '../../stt/render.js';
import { abortOnClose } from './tts.js';

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

const tooLarge = () => new ApiError('FILE_TOO_LARGE', { message: 'The uploaded file is larger than 25 MB.', details: { limit_bytes: MAX_UPLOAD_BYTES } });

/**
 * What went wrong reading the upload, as the client's error: everything in the loop below is
 * reading the client's body, so whatever busboy or @fastify/multipart throws (no boundary, a
 * boundary over busboy's 256-character limit or not in the body, malformed part headers, a body
 * that ends mid-part or a client gone mid-upload) is a 400, never a 500. Busboy's errors carry no
 * code, only a message, and its messages are fixed phrases, never the client's bytes.
 */
export function multipartError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return new ApiError('INVALID_REQUEST', { message: 'Too many parts in the upload: send one file and the documented fields.' });
  const message = err instanceof Error && err.message ? err.message.slice(0, 200) : 'unknown error';
  const said = message.endsWith('.') ? message.slice(0, -1) : message;
  return new ApiError('INVALID_REQUEST', { message: `The multipart body could not be read: ${said}.`, cause: err });
}

/** Reads the fields and the one file; the file is capped at 25 MB while streaming. Shared with the OpenAI dialect's transcriptions. */
export async function readUpload(request: FastifyRequest): Promise<{ fields: Map<string, string>; file: Buffer | null }> {
  const declared = Number(request.headers['content-length'] ?? 0);
  // A body this large cannot hold a file within the limit: refuse before reading it.
  if (declared > MAX_UPLOAD_BYTES + 1024 * 1024) throw tooLarge();
  if (!request.isMultipart()) throw new ApiError('INVALID_REQUEST', { message: 'Send the audio as multipart/form-data with the file in the field "file".' });
  const fields = new Map<string, string>();
  let file: Buffer | null = null;
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 30, fieldSize: 16 * 1024 } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          continue;
        }
        file = await part.toBuffer();
      } else if (typeof part.value === 'string') {
        // OpenAI-style clients send array fields as repeated `timestamp_granularities[]` parts:
        // repeated values of one field are read as one comma-separated list.
        const name = part.fieldname.replace(/\[\]$/, '');
        const prev = fields.get(name);
        fields.set(name, prev === undefined ? part.value : `${prev},${part.value}`);
      }
    }
  } catch (err) {
    throw multipartError(err);
  }
  return { fields, file };
}

export interface SttRouteOptions {
  stt: SttService;
}

export const sttRoutes: FastifyPluginAsync<SttRouteOptions> = async (app, { stt }) => {
  // Registered here, not on the whole app: its request and response hooks then run for uploads
  // only, not for every API request.
  await app.register(multipart, { throwFileSizeLimit: true });

  const handle = (endpoint: SttEndpoint) => async (request: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    stt.checkAccess(request.auth, 'batch');
    const { fields, file } = await readUpload(request);
    const options = parseSttFields(fields, endpoint);
    const audio = file ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : null;
    // The client going away stops a long recording's remaining pieces (src/stt/long-audio/).
    const t = await stt.transcribe(request.auth, { requestId: request.id, endpoint, options, audio }, abortOnClose(reply.raw));
    const body = render(options.responseFormat, t.transcript, {
      language: t.language,
      duration: t.duration,
      model: t.model,
      provider: t.provider,
      engine: t.engine,
      creditsUsed: t.credits,
      includeWords: options.diarize || (options.responseFormat === 'verbose_json' && options.granularities.includes('word')),
      includeSegments: options.responseFormat === 'verbose_json',
      diarized: options.diarize,
    });
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
  app.post('/stt/transcribe', { schema: doc('Transcribe with any model (Cipher and Lucid fields accepted)', 'model, language, response_format, prompt, timestamp_granularities, diarize, smart_format, punctuate, keywords') }, handle('universal'));
  app.post('/stt/cipher/transcribe', { schema: doc('Transcribe with cipher-fast or cipher-max', 'model, language, response_format, prompt, timestamp_granularities') }, handle('cipher'));
  app.post('/stt/lucid/transcribe', { schema: doc('Transcribe with a Lucid model (default lucid-mono)', 'model, language, response_format, diarize, smart_format, punctuate, keywords') }, handle('lucid'));
};
