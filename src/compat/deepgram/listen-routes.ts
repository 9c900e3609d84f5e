// Deepgram's prerecorded transcription, POST /v1/listen (docs/compatibility.md, "Deepgram"): the
// audio as the raw body (any Content-Type but JSON: the SDK sends application/octet-stream,
// others audio/*), or {"url": ...} as JSON, fetched through the safe fetcher with the job queue's
// rules (PARLA_FETCH_ALLOW_PRIVATE / PARLA_FETCH_ALLOW_HOSTS). An edge only: the query is read by
// listen-params.ts (shared with the live socket), the work is SttService.transcribe as on the
// native universal endpoint (so billing, limits, key states, feature switches, metrics and usage
// are the native ones), the answer is rendered by listen-render.ts and every failure in
// Deepgram's error body (errors.ts). With `callback` the request is answered at once and run as a
// job (listen-callback.ts).

import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preParsingAsyncHookHandler } from 'fastify';
import type { DeepgramMapping } from '../../config.js';
import { ApiError } from '../../errors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../http/json-body.js';
import { fetchBytes } from '../../net/fetch-bytes.js';
import type { FetchPolicy } from '../../net/safe-fetch.js';
import { fetchErrorToApi } from '../../faults/translate.js';
import { VERSION } from '../../routes/health.js';
import { MAX_UPLOAD_BYTES } from '../../http/upload.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import type { SttService } from '../../stt/service.js';
import type { JobService } from '../../jobs/service.js';
import { redactTranscript } from '../../stt/redact.js';
import { sendDeepgramError } from './errors.js';
import { parseListenParams, type ListenParams } from './listen-params.js';
import { renderListenResponse } from './listen-render.js';
import { audioUrlOf, isJsonRequest, listenRequest, MAX_JSON_BODY, noAudio, sha256, tooLarge, withContainer } from './listen-body.js';
import { acceptCallback } from './listen-callback.js';

export interface DeepgramListenRouteOptions {
  stt: SttService;
  /** Deepgram's callback runs as a job (listen-callback.ts). */
  jobs: JobService;
  mapping: DeepgramMapping;
  /** Who may be fetched for {"url"}, and called back: the job queue's policy (config.jobs). */
  fetchPolicy: FetchPolicy;
}

export const deepgramListenRoutes: FastifyPluginAsync<DeepgramListenRouteOptions> = async (app, { stt, jobs, mapping, fetchPolicy }) => {
  const params = new WeakMap<FastifyRequest, ListenParams>();

  function handleError(err: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    // Fastify's body cap: for audio that is the upload limit (FILE_TOO_LARGE), as natively.
    const code = (err as { code?: string }).code;
    return sendDeepgramError(request, reply, code === 'FST_ERR_CTP_BODY_TOO_LARGE' && !isJsonRequest(request) ? tooLarge() : err);
  }

  /** Before the body is read: the feature switch and the query, so a refused request costs no upload. */
  const readQuery: preParsingAsyncHookHandler = async function readQuery(request, _reply, payload) {
    stt.checkAccess(request.auth, 'batch');
    const url = request.raw.url ?? '';
    const at = url.indexOf('?');
    params.set(request, parseListenParams(new URLSearchParams(at < 0 ? '' : url.slice(at + 1)), mapping, 'prerecorded'));
    // A balance that cannot pay a second is refused before the upload is read (decision #58).
    await stt.checkBalanceBeforeUpload(request.auth);
    return payload;
  };

  async function refuseMethod(request: FastifyRequest): Promise<never> {
    throw new ApiError('NOT_FOUND', {
      message: `No endpoint ${request.method} /v1/listen: POST the audio (or {"url"}), or open a WebSocket for live transcription.`,
    });
  }

  async function listen(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const p = params.get(request)!;
    if (p.callback !== undefined) return reply.code(200).send(await acceptCallback(request, p, { jobs, fetchPolicy }));
    const signal = abortOnClose(reply.raw);
    let audio: Buffer | undefined;
    if (isJsonRequest(request)) {
      try {
        audio = await fetchBytes(audioUrlOf(request.body), { policy: fetchPolicy, maxBytes: MAX_UPLOAD_BYTES, signal });
      } catch (err) {
        throw fetchErrorToApi(err);
      }
    } else audio = Buffer.isBuffer(request.body) ? request.body : undefined;
    if (!audio || audio.length === 0) throw noAudio();
    audio = withContainer(audio, p);
    const bytes = new Uint8Array(audio.buffer, audio.byteOffset, audio.byteLength);
    const digest = sha256(bytes);
    digest.catch(() => undefined);
    const t = await stt.transcribe(
      request.auth,
      { requestId: request.id, endpoint: 'universal', options: listenRequest(p), audio: bytes },
      signal,
    );
    reply.header('X-Credits-Used', String(t.credits)).header('X-Credits-Remaining', String(t.balance));
    const body = renderListenResponse({ ...t, transcript: redactTranscript(t.transcript, p.redaction) }, p, {
      requestId: request.id,
      sha256: await digest,
      created: new Date(),
      version: VERSION,
    });
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(body));
  }

  app.setErrorHandler(handleError);
  // Deepgram answers every request with its id in dg-request-id (its SDK reads it); errors set it too.
  app.addHook('onSend', async function requestIdHeader(request, reply, payload) {
    reply.header('dg-request-id', request.id);
    return payload;
  });

  // This plugin's own parsers: the body is audio whatever its Content-Type, except JSON (a URL).
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_JSON_BODY }, function parseUrlBody(request, body, done) {
    const text = body as string;
    if (exceedsJsonDepth(text)) {
      done(
        new ApiError('INVALID_REQUEST', {
          message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`,
          details: { limit: MAX_JSON_DEPTH },
        }),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => done(null, body));

  // /v1/listen is POST here (and a WebSocket upgrade for live): other methods get Deepgram's body too.
  app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url: '/listen', schema: { hide: true }, handler: refuseMethod });

  app.post(
    '/listen',
    {
      // No route bodyLimit: it would override the parsers' own (25 MB audio, 64 KB JSON).
      schema: {
        tags: ['deepgram'],
        summary: 'Deepgram: transcribe prerecorded audio',
        description:
          'The audio as the body (any Content-Type but application/json; at most 25 MB) or {"url": "..."} as JSON. Query: model (Deepgram ids mapped, Parla ids), language, detect_language, punctuate, smart_format, numerals, diarize, utterances, utt_split, paragraphs, keywords, keyterm, tag, redact, profanity_filter, encoding/sample_rate/channels for raw linear16, callback and callback_method (answered at once with {"request_id"}; the answer goes to the callback URL) (docs/compatibility.md).',
        security: [{ apiKey: [] }],
      },
      preParsing: readQuery,
    },
    listen,
  );
};
