// Deepgram's prerecorded transcription, POST /v1/listen (docs/compatibility.md, "Deepgram"): the
// audio as the raw body (any Content-Type but JSON: the SDK sends application/octet-stream,
// others audio/*), or {"url": ...} as JSON, fetched through the safe fetcher with the job queue's
// rules (PARLA_FETCH_ALLOW_PRIVATE / PARLA_FETCH_ALLOW_HOSTS). An edge only: the query is read by
// listen-params.ts (shared with the live socket), the work is SttService.transcribe as on the
// native universal endpoint (so billing, limits, key states, feature switches, metrics and usage
// are the native ones), the answer is rendered by listen-render.ts and every failure in
// Deepgram's error body (errors.ts).

import { webcrypto } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { DeepgramMapping } from '../../config.js';
import { ApiError } from '../../errors.js';
import { wavHeader } from '../../audio/wav.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../http/json-body.js';
import { fetchBytes } from '../../net/fetch-bytes.js';
import { fetchErrorToApi, type FetchPolicy } from '../../net/safe-fetch.js';
import { VERSION } from '../../routes/health.js';
import { MAX_UPLOAD_BYTES } from '../../routes/v1/stt.js';
import { abortOnClose } from '../../routes/v1/tts.js';
import type { SttService } from '../../stt/service.js';
import type { SttRequest } from '../../stt/request.js';
import { sendDeepgramError } from './errors.js';
import { parseListenParams, type ListenParams } from './listen-params.js';
import { renderListenResponse } from './listen-render.js';

export interface DeepgramListenRouteOptions {
  stt: SttService;
  mapping: DeepgramMapping;
  /** Who may be fetched for {"url"}: the job queue's policy (config.jobs). */
  fetchPolicy: FetchPolicy;
}

/** A {"url"} body is a few hundred bytes; anything near this is not one. */
const MAX_JSON_BODY = 64 * 1024;

const tooLarge = () => new ApiError('FILE_TOO_LARGE', { message: 'The audio is larger than 25 MB.', details: { limit_bytes: MAX_UPLOAD_BYTES } });

function isJsonRequest(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * encoding=linear16 with headerless bytes (Deepgram's raw PCM upload): a WAV header from
 * sample_rate and channels is put in front, so the decoder reads it as it reads any WAV. Bytes that
 * are a container already (RIFF, or anything else) go to the decoder as they are, which sniffs
 * the format, as Deepgram does.
 */
function withContainer(audio: Buffer, p: ListenParams): Buffer {
  if (p.encoding !== 'linear16' || audio.toString('latin1', 0, 4) === 'RIFF') return audio;
  if (p.sampleRate === undefined) throw new ApiError('INVALID_PARAMETER', { message: 'sample_rate is required with encoding=linear16 (raw PCM has no header to read it from).', details: { field: 'sample_rate' } });
  const channels = p.channels ?? 1;
  // A partial last frame is dropped: a WAV's data is whole frames.
  const usable = audio.length - (audio.length % (2 * channels));
  return Buffer.concat([wavHeader(p.sampleRate, usable, channels), audio.subarray(0, usable)]);
}

/** Hex SHA-256 of the audio, on libuv's thread pool (WebCrypto's digest), not the event loop. */
async function sha256(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

export const deepgramListenRoutes: FastifyPluginAsync<DeepgramListenRouteOptions> = async (app, { stt, mapping, fetchPolicy }) => {
  const params = new WeakMap<FastifyRequest, ListenParams>();
  app.setErrorHandler(async (err, request, reply) => {
    // Fastify's body cap: for audio that is the upload limit (FILE_TOO_LARGE), as natively.
    const code = (err as { code?: string }).code;
    return sendDeepgramError(request, reply, code === 'FST_ERR_CTP_BODY_TOO_LARGE' && !isJsonRequest(request) ? tooLarge() : err);
  });
  // Deepgram answers every request with its id in dg-request-id (its SDK reads it); errors set it too.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('dg-request-id', request.id);
    done(null, payload);
  });

  // This plugin's own parsers: the body is audio whatever its Content-Type, except JSON (a URL).
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_JSON_BODY }, (request, body, done) => {
    const text = body as string;
    if (exceedsJsonDepth(text)) {
      done(new ApiError('INVALID_REQUEST', { message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, details: { limit: MAX_JSON_DEPTH } }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => done(null, body));

  // /v1/listen is POST here (and a WebSocket upgrade for live): other methods get Deepgram's body too.
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: '/listen',
    schema: { hide: true },
    handler: async (request) => {
      throw new ApiError('NOT_FOUND', { message: `No endpoint ${request.method} /v1/listen: POST the audio (or {"url"}), or open a WebSocket for live transcription.` });
    },
  });

  app.post(
    '/listen',
    {
      // No route bodyLimit: it would override the parsers' own (25 MB audio, 64 KB JSON).
      schema: {
        tags: ['deepgram'],
        summary: 'Deepgram: transcribe prerecorded audio',
        description:
          'The audio as the body (any Content-Type but application/json; at most 25 MB) or {"url": "..."} as JSON. Query: model (Deepgram ids mapped, Parla ids), language, detect_language, punctuate, smart_format, numerals, diarize, utterances, utt_split, paragraphs, keywords, keyterm, tag, encoding/sample_rate/channels for raw linear16 (docs/compatibility.md).',
        security: [{ apiKey: [] }],
      },
      // Before the body is read: the feature switch and the query, so a refused request costs no upload.
      preParsing: (request, _reply, payload, done) => {
        try {
          stt.checkAccess(request.auth, 'batch');
          const url = request.raw.url ?? '';
          const at = url.indexOf('?');
          const p = parseListenParams(new URLSearchParams(at < 0 ? '' : url.slice(at + 1)), mapping, 'prerecorded');
          if (p.callback !== undefined) {
            throw new ApiError('INVALID_PARAMETER', {
              message: 'callback (asynchronous transcription) is not supported on this server yet: send the request without callback and read the transcript from the answer.',
              details: { field: 'callback' },
            });
          }
          params.set(request, p);
          done(null, payload);
        } catch (err) {
          done(err as Error, undefined);
        }
      },
    },
    async (request, reply) => {
      const p = params.get(request)!;
      const signal = abortOnClose(reply.raw);
      let audio: Buffer | undefined;
      if (isJsonRequest(request)) {
        const body = request.body as unknown;
        const url = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).url : undefined;
        if (typeof url !== 'string' || url.trim() === '') {
          throw new ApiError('INVALID_REQUEST', { message: 'A JSON body must be {"url": "<http(s) URL of the audio>"}; to send audio, send its bytes with its own Content-Type.', details: { field: 'url' } });
        }
        try {
          audio = await fetchBytes(url.trim(), { policy: fetchPolicy, maxBytes: MAX_UPLOAD_BYTES, signal });
        } catch (err) {
          throw fetchErrorToApi(err);
        }
      } else {
        audio = Buffer.isBuffer(request.body) ? request.body : undefined;
      }
      if (!audio || audio.length === 0) throw new ApiError('MISSING_FILE', { message: 'The request has no audio: send the audio bytes as the body, or {"url": "..."} as JSON.', resolution: 'Send the audio as the request body (e.g. Content-Type: audio/wav).' });
      audio = withContainer(audio, p);
      const bytes = new Uint8Array(audio.buffer, audio.byteOffset, audio.byteLength);
      const digest = sha256(bytes);
      digest.catch(() => undefined);
      const options: SttRequest = {
        model: p.model,
        language: p.language,
        responseFormat: 'json',
        prompt: undefined,
        granularities: [],
        diarize: p.diarize,
        smartFormat: p.smartFormat,
        punctuate: p.punctuate,
        keywords: p.keywords,
      };
      const t = await stt.transcribe(request.auth, { requestId: request.id, endpoint: 'universal', options, audio: bytes }, signal);
      reply.header('X-Credits-Used', String(t.credits)).header('X-Credits-Remaining', String(t.balance));
      const body = renderListenResponse(t, p, { requestId: request.id, sha256: await digest, created: new Date(), version: VERSION });
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(body));
    },
  );
};
