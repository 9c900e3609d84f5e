// POST /api/v1/stt/transcribe (universal), /api/v1/stt/cipher/transcribe, /api/v1/stt/lucid/transcribe.
// Thin: read the multipart upload -> validate -> decode (worker) -> price and hold credits ->
// recognize -> post-process -> settle -> render in the requested format.

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { Services } from '../../services.js';
import { ApiError } from '../../errors.js';
import { requireFeature } from '../../accounts/auth-context.js';
import { billableSeconds, sttCredits } from '../../accounts/pricing.js';
import { errorResponses } from '../../http/schemas.js';
import { parseSttFields, type SttRequest } from '../../stt/request.js';
import { engineFamily, type SttEndpoint, type SttModels } from '../../stt/stt-models.js';
import { applySpeakers, buildTranscript, diarizationSpans } from '../../stt/transcript.js';
import { render, RESPONSE_CONTENT_TYPES } from '../../stt/render.js';

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

const tooLarge = () => new ApiError('FILE_TOO_LARGE', { message: 'The uploaded file is larger than 25 MB.', details: { limit_bytes: MAX_UPLOAD_BYTES } });

/**
 * What went wrong reading the upload, as the client's error: everything in the loop below is
 * reading the client's body, so whatever busboy or @fastify/multipart throws (no boundary, a
 * boundary over busboy's 256-character limit or not in the body, malformed part headers, a body
 * that ends mid-part or a client gone mid-upload) is a 400, never a 500. Busboy's errors carry no
 * code, only a message, and its messages are fixed phrases, never the client's bytes.
 */
function multipartError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return new ApiError('INVALID_REQUEST', { message: 'Too many parts in the upload: send one file and the documented fields.' });
  const message = err instanceof Error && err.message ? err.message.slice(0, 200) : 'unknown error';
  const said = message.endsWith('.') ? message.slice(0, -1) : message;
  return new ApiError('INVALID_REQUEST', { message: `The multipart body could not be read: ${said}.`, cause: err });
}

/** Reads the fields and the one file; the file is capped at 25 MB while streaming. */
async function readUpload(request: FastifyRequest): Promise<{ fields: Map<string, string>; file: Buffer | null }> {
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
  services: Services;
  models: SttModels;
}

export const sttRoutes: FastifyPluginAsync<SttRouteOptions> = async (app, { services, models }) => {
  const { pool, billing, config } = services;
  // Registered here, not on the whole app: its request and response hooks then run for uploads
  // only, not for every API request.
  await app.register(multipart, { throwFileSizeLimit: true });

  const handle = (endpoint: SttEndpoint) => async (request: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const auth = request.auth;
    requireFeature(auth, 'stt');
    const { fields, file } = await readUpload(request);
    const req: SttRequest = parseSttFields(fields, endpoint);
    const model = models.checkModel(req.model, endpoint);
    if (req.diarize) requireFeature(auth, 'diarization');
    const language = models.resolveLanguage(model, req.language);
    const binding = models.binding(model);
    if (!binding) throw new ApiError('LANGUAGE_NOT_SUPPORTED', { message: `${model} has no speech engine available in this installation.` });
    if (!file || file.length === 0) throw new ApiError('MISSING_FILE');

    const decoded = await pool.run('audio.decode', { bytes: new Uint8Array(file.buffer, file.byteOffset, file.byteLength) });
    if (!decoded.ok) throw new ApiError('INVALID_AUDIO', { message: `The audio could not be decoded: ${decoded.reason}` });
    const pcm = decoded.pcm;
    const duration = +(pcm.length / 16000).toFixed(3);
    const credits = sttCredits(config.product, model, duration);
    const hold = await billing.hold(auth, { requestId: request.id, kind: 'stt', model, credits, characters: 0 });
    let body: string | Record<string, unknown>;
    let balance: number;
    try {
      const recognizing = performance.now();
      const result = await binding.engine.recognize(pcm, { language, profile: binding.profile, keywords: req.keywords });
      services.metrics.observeRecognition(duration, (performance.now() - recognizing) / 1000, binding.engine.id);
      const transcript = buildTranscript(result.utterances, { smartFormat: req.smartFormat, punctuate: req.punctuate });
      if (req.diarize && transcript.words.length) {
        const spans = diarizationSpans(transcript);
        const labels = await pool.run('stt.diarize', { pcm, spans: spans.map((s) => ({ start: s.start, end: s.end })) });
        applySpeakers(transcript, spans, labels);
      }
      balance = await hold.settle({ units: billableSeconds(duration), characters: 0, credits });
      body = render(req.responseFormat, transcript, {
        language,
        duration,
        model,
        provider: engineFamily(model),
        creditsUsed: credits,
        includeWords: req.diarize || (req.responseFormat === 'verbose_json' && req.granularities.includes('word')),
        includeSegments: req.responseFormat === 'verbose_json',
        diarized: req.diarize,
      });
    } catch (err) {
      await hold.release();
      throw err;
    }
    return reply
      .header('Content-Type', RESPONSE_CONTENT_TYPES[req.responseFormat])
      .header('X-Processing-Time-Ms', String(Math.round(performance.now() - started)))
      .header('X-Credits-Used', String(credits))
      .header('X-Credits-Remaining', String(balance))
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
