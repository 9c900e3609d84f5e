// OpenAI's POST /v1/audio/transcriptions and /v1/audio/translations (docs/compatibility.md): the
// upload read as the native batch endpoints read it, OpenAI's fields mapped onto the native ones,
// one SttService.transcribe call, the answer in OpenAI's json and verbose_json (or Parla's text,
// srt, vtt), or as transcript.text events.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { readUpload } from '../../http/upload.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import { parseSttFields, type SttRequest } from '../../stt/request.js';
import { render, RESPONSE_CONTENT_TYPES } from '../../stt/response-formats.js';
import type { SttService, Transcription } from '../../stt/service.js';
import type { OpenAiMapper } from './mapping.js';

/** OpenAI's verbose_json language: the language's English name, lower-cased ("english"). */
function languageName(code: string): string {
  const base = code.split('-')[0] ?? code;
  try {
    return (new Intl.DisplayNames(['en'], { type: 'language' }).of(base) ?? base).toLowerCase();
  } catch {
    return base;
  }
}

/** POST /v1/audio/translations: served when an installed model's engine translates (a multilingual Whisper). */
export function createTranslation(d: { stt: SttService; mapper: OpenAiMapper }) {
  const { stt, mapper } = d;
  return async function createTranslation(request: FastifyRequest, reply: FastifyReply) {
    stt.checkAccess(request.auth, 'batch');
    const translating = stt.translatingModels();
    if (translating.length === 0) {
      // No product model is served by an engine that translates (PocketSphinx recognizes one
      // language; a multilingual Whisper translates): refused before the upload is read, so
      // nothing is decoded or billed.
      throw new ApiError('INVALID_REQUEST', {
        message:
          'Translation is not available on this server: no installed speech model can translate. Use /v1/audio/transcriptions to transcribe in the spoken language.',
        resolution: 'Transcribe with /v1/audio/transcriptions, or install a multilingual Whisper model and bind it (docs/engines.md).',
        details: { field: 'model' },
      });
    }
    await stt.checkBalanceBeforeUpload(request.auth);
    const { fields, file } = await readUpload(request);
    const model = fields.get('model')?.trim();
    if (!model) throw new ApiError('INVALID_PARAMETER', { message: 'model is required (e.g. whisper-1).', details: { field: 'model' } });
    // The mapped model when its engine translates, else the first product model whose engine does
    // (docs/compatibility.md): whisper-1 asks for a translation, not for Parla's cipher-max.
    const asked = mapper.sttModel(model);
    const product = (translating as string[]).includes(asked) ? asked : translating[0]!;
    // OpenAI's translation fields: no language (Whisper detects it), no timestamp granularities.
    const native = new Map<string, string>([['model', product]]);
    for (const f of ['prompt', 'response_format']) {
      const v = fields.get(f);
      if (v !== undefined) native.set(f, v);
    }
    const options = parseSttFields(native, 'universal');
    const audio = file ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : null;
    const t = await stt.transcribe(
      request.auth,
      { requestId: request.id, endpoint: 'universal', options, audio, task: 'translate' },
      abortOnClose(reply.raw),
    );
    reply.header('X-Credits-Used', String(t.credits)).header('X-Credits-Remaining', String(t.balance)).header('X-Parla-Model', t.model);
    return sendTranscript(reply, t, options);
  };
}

/** A transcript (or translation) in the response format asked for: OpenAI's json and verbose_json, Parla's text, srt, vtt. */
export function sendTranscript(reply: FastifyReply, t: Transcription, options: SttRequest): FastifyReply {
  const format = options.responseFormat;
  if (format === 'json')
    return reply
      .header('Content-Type', 'application/json')
      .send(JSON.stringify({ text: t.transcript.text, usage: { type: 'duration', seconds: Math.ceil(t.duration) } }));
  if (format === 'verbose_json')
    return reply.header('Content-Type', 'application/json').send(JSON.stringify(verboseJson(t, options.granularities)));
  const body = render(format, t.transcript, {
    language: t.language,
    duration: t.duration,
    model: t.model,
    provider: t.provider,
    engine: t.engine,
    creditsUsed: t.credits,
    includeWords: false,
    includeSegments: false,
    diarized: false,
  });
  return reply.header('Content-Type', RESPONSE_CONTENT_TYPES[format]).send(body);
}

/**
 * OpenAI's verbose_json: segments unless only word timestamps were asked for, words when they
 * were. Whisper's decoder figures (tokens, temperature, compression_ratio, no_speech_prob) have no
 * counterpart here and are left out; avg_logprob is the log of the segment's mean confidence.
 */
function verboseJson(t: Transcription, granularities: Array<'word' | 'segment'>) {
  const words = granularities.includes('word');
  const segments = granularities.length === 0 || granularities.includes('segment');
  return {
    task: t.task,
    language: languageName(t.language),
    duration: t.duration,
    text: t.transcript.text,
    ...(segments
      ? {
          segments: t.transcript.segments.map((s) => ({
            id: s.id,
            seek: 0,
            start: s.start,
            end: s.end,
            text: s.text,
            avg_logprob: Math.log(Math.max(1e-6, s.avgConfidence ?? 0)),
          })),
        }
      : {}),
    ...(words ? { words: t.transcript.words.map((w) => ({ word: w.punctuated, start: w.start, end: w.end })) } : {}),
    usage: { type: 'duration', seconds: Math.ceil(t.duration) },
  };
}
