// POST /api/v1/tts/generate (a complete audio file) and POST /api/v1/tts/stream (raw PCM, chunked).
// Thin: validate (schemas) -> prepare the job -> admit (or 503) -> hold credits -> synthesize -> settle -> respond.

import { PassThrough } from 'node:stream';
import { setMaxListeners } from 'node:events';
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { errorResponses } from '../../http/schemas.js';
import { prepareTts, type TtsRequest } from '../../tts/prepare.js';
import { generateAudio, OUTPUT_FORMATS, type GeneratedAudio, type OutputFormat } from '../../tts/generate.js';
import { streamAudio, STREAM_SAMPLE_RATES } from '../../tts/stream.js';
import type { TtsCatalogPort, TtsEnginePort } from '../../tts/ports.js';
import { ApiError } from '../../errors.js';

const TTS_MODELS = ['aura-lite', 'aura-prime', 'aura-max', 'rapid-flash', 'rapid-max'] as const;
const STREAM_MODELS = TTS_MODELS;

const literalUnion = <T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), opts);

export const GenerateBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 5000, description: 'Text to speak, at most 5,000 characters; Aura models accept break and expression tags.' }),
    voice: Type.String({ minLength: 1, description: 'Voice name valid for the model and language (GET /voices).' }),
    model: literalUnion(TTS_MODELS, { default: 'aura-prime' }),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 16, description: 'Language code, e.g. en-US, de-DE, ja. Default en-US (a Flash voice: its own language).' })),
    speed: Type.Number({ minimum: 0.5, maximum: 2, default: 1 }),
    pitch: Type.Optional(Type.Number({ minimum: -20, maximum: 20, description: 'Semitones, -20 to +20; default 0.' })),
    format: literalUnion(OUTPUT_FORMATS, { default: 'wav' }),
  },
  { additionalProperties: true },
);

const StreamBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 50000, description: 'Text to speak, at most 50,000 characters. Break tags are removed.' }),
    voice: Type.String({ minLength: 1 }),
    model: literalUnion(STREAM_MODELS, { default: 'aura-prime' }),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 16, description: 'Default en-US (a Flash voice: its own language).' })),
    sample_rate: Type.Integer({ default: 24000, description: 'One of 8000, 16000, 22050, 24000, 44100, 48000.' }),
    speed: Type.Number({ minimum: 0.5, maximum: 2, default: 1 }),
    pitch: Type.Optional(Type.Number({ minimum: -20, maximum: 20, description: 'rapid-flash only.' })),
  },
  { additionalProperties: true },
);

export const CONTENT_TYPES: Record<OutputFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', flac: 'audio/flac' };

export interface TtsRouteOptions {
  services: Services;
  catalog: TtsCatalogPort;
  engines: TtsEnginePort;
}

export const ttsRoutes: FastifyPluginAsyncTypebox<TtsRouteOptions> = async (app, { services, catalog, engines }) => {
  const { config, billing, pool } = services;

  app.post(
    '/tts/generate',
    {
      schema: {
        tags: ['tts'],
        summary: 'Synthesize a complete audio file',
        security: [{ apiKey: [] }],
        body: GenerateBody,
        response: { 200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The audio file (Content-Type per format).' }), ...errorResponses(402, 413) },
      },
    },
    async (request, reply) => {
      const started = performance.now();
      const body = request.body as Static<typeof GenerateBody>;
      const req: TtsRequest = { text: body.text, voice: body.voice, model: body.model, language: body.language, speed: body.speed, pitch: body.pitch };
      const job = prepareTts(config, catalog, engines, request.auth, req, 'generate');
      // A full node refuses before any credit is held (EnginePool.admit).
      const admission = pool.admit();
      let audio: GeneratedAudio;
      let hold: Awaited<ReturnType<typeof billing.hold>>;
      try {
        hold = await billing.hold(request.auth, { requestId: request.id, kind: 'tts', model: job.model, credits: job.credits, characters: job.characters });
        try {
          audio = await admission.run(() => generateAudio(pool, job, body.format, abortOnClose(reply.raw)));
          services.metrics.observeSynthesis(audio.seconds, (performance.now() - started) / 1000, job.voice.engine.id);
        } catch (err) {
          await hold.release();
          throw err;
        }
      } finally {
        admission.release();
      }
      const balance = await hold.settle({ units: job.characters, characters: job.characters, credits: job.credits });
      return reply
        .code(200)
        .header('Content-Type', CONTENT_TYPES[body.format])
        .header('Content-Disposition', `attachment; filename="parla-${request.id.slice(4, 16)}.${body.format}"`)
        .header('Content-Length', String(audio.byteLength))
        .header('X-Processing-Time-Ms', String(Math.round(performance.now() - started)))
        .header('X-Credits-Used', String(job.credits))
        .header('X-Credits-Remaining', String(balance))
        .send(audio.body instanceof Uint8Array ? Buffer.from(audio.body.buffer, audio.body.byteOffset, audio.body.byteLength) : audio.body);
    },
  );

  app.post(
    '/tts/stream',
    {
      schema: {
        tags: ['tts'],
        summary: 'Stream raw PCM (16-bit little-endian, mono) while it is synthesized',
        description:
          'Chunked audio/pcm. Headers: X-Sample-Rate, X-Bits-Per-Sample, X-Channels, X-Audio-Format and ' +
          'X-Credits-Reserved (the price of the whole text, held while streaming). After the last byte, ' +
          'the HTTP trailer X-Credits-Used (declared in the Trailer header) gives the credits finally ' +
          'charged: only sentences whose audio was all sent are billed, the rest of the hold is refunded. ' +
          'A stream cut short (client gone, synthesis failure) ends without the trailer; the usage ' +
          'records have the charged figure either way.',
        security: [{ apiKey: [] }],
        body: StreamBody,
        response: { 200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'audio/pcm, chunked' }), ...errorResponses(402, 413) },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof StreamBody>;
      if (!(STREAM_SAMPLE_RATES as readonly number[]).includes(body.sample_rate)) {
        throw new ApiError('INVALID_SAMPLE_RATE', { details: { field: 'sample_rate', provided: String(body.sample_rate) } });
      }
      const req: TtsRequest = { text: body.text, voice: body.voice, model: body.model, language: body.language, speed: body.speed, pitch: body.pitch };
      const job = prepareTts(config, catalog, engines, request.auth, req, 'stream');
      // A full node refuses before any credit is held; the place is freed once the first audio is
      // out or the stream failed before it (EnginePool.admit says why).
      const admission = pool.admit();
      let hold: Awaited<ReturnType<typeof billing.hold>>;
      try {
        hold = await billing.hold(request.auth, { requestId: request.id, kind: 'tts_stream', model: job.model, credits: job.credits, characters: job.characters });
      } catch (err) {
        admission.release();
        throw err;
      }
      const controller = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('client went away'));
      });

      const out = new PassThrough();
      let settled = false;
      // What the ledger row says was charged, once it is written: the X-Credits-Used trailer.
      let creditsUsed: number | null = null;
      const settle = async (charactersSent: number) => {
        if (settled) return;
        settled = true;
        const credits = Math.round((job.credits * charactersSent) / Math.max(1, job.characters));
        if (charactersSent === 0) {
          await hold.release();
          creditsUsed = 0;
        } else {
          await hold.settle({ units: charactersSent, characters: charactersSent, credits }).then(
            () => (creditsUsed = credits),
            (err: unknown) => request.log.error({ err }, 'settling a stream failed'),
          );
        }
      };

      // The first sentence is synthesized before the headers go out, so a failure there is still a
      // proper JSON error; later failures end the stream early and bill only what was sent.
      const run = admission.run(() => streamAudio(pool, job, body.sample_rate, out, controller.signal));
      try {
        await run.firstChunk;
      } catch (err) {
        await settle(0);
        throw err;
      } finally {
        admission.release();
      }
      run.done.then(
        async (sent) => {
          await settle(sent);
          out.end();
        },
        async (err: unknown) => {
          await settle(run.charactersSent());
          if (!controller.signal.aborted) request.log.error({ err }, 'stream synthesis failed mid-stream');
          out.destroy(err instanceof Error ? err : new Error(String(err)));
        },
      );
      return reply
        .code(200)
        .header('Content-Type', 'audio/pcm')
        .header('X-Sample-Rate', String(body.sample_rate))
        .header('X-Bits-Per-Sample', '16')
        .header('X-Channels', '1')
        .header('X-Audio-Format', 'pcm')
        .header('X-Credits-Reserved', String(job.credits))
        // Sent after the last audio byte (declared in a Trailer header; Fastify makes the response
        // chunked): `out` ends only once the hold is settled, so this is the charged figure. A
        // stream cut short by a failure or by the client ends without trailers; a settlement that
        // failed (the store was unreachable: nothing charged yet) leaves the trailer out.
        .trailer('X-Credits-Used', async () => {
          if (creditsUsed === null) throw new Error('the stream was not settled');
          return String(creditsUsed);
        })
        .send(out);
    },
  );
};

/** An abort signal that fires when the client goes away before the response was sent. */
export function abortOnClose(res: import('node:http').ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Every chunk task of a long text listens on it (a few dozen at most): no leak.
  setMaxListeners(200, controller.signal);
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client went away'));
  });
  return controller.signal;
}
