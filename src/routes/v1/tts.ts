// POST /api/v1/tts/generate (a complete audio file) and POST /api/v1/tts/stream (raw PCM, chunked).
// The edge only: validate the body (schemas) -> one call to the TTS service (src/tts/service.ts:
// admission, credits, synthesis, settlement) -> headers.

import { abortOnClose } from '../../edge/abort-on-close.js';
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.js';
import type { TtsService } from '../../tts/service.js';
import { CONTENT_TYPES, GenerateBody, generateFields, StreamBody } from './tts-schemas.js';

export interface TtsRouteOptions {
  tts: TtsService;
}

export const ttsRoutes: FastifyPluginAsyncTypebox<TtsRouteOptions> = async (app, { tts }) => {
  app.post(
    '/tts/generate',
    {
      schema: {
        tags: ['tts'],
        summary: 'Synthesize a complete audio file',
        security: [{ apiKey: [] }],
        body: GenerateBody,
        response: {
          200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The audio file (Content-Type per format).' }),
          ...errorResponses(402, 413),
        },
      },
    },
    async function generateSpeech(request, reply) {
      const started = performance.now();
      const body = request.body as Static<typeof GenerateBody>;
      const { audio, credits, balance, engine } = await tts.generate(
        request.auth,
        generateFields(request.id, body),
        abortOnClose(reply.raw),
      );
      return (
        reply
          .code(200)
          .header('Content-Type', CONTENT_TYPES[body.format])
          .header('Content-Disposition', `attachment; filename="parla-${request.id.slice(4, 16)}.${body.format}"`)
          .header('Content-Length', String(audio.byteLength))
          .header('X-Processing-Time-Ms', String(Math.round(performance.now() - started)))
          .header('X-Credits-Used', String(credits))
          .header('X-Credits-Remaining', String(balance))
          // Which engine spoke (as STT responses say in metadata.engine): an installed neural voice
          // taking over aura-max is visible here (docs/engines.md "Aura voices on a neural model").
          .header('X-Engine', engine)
          .send(
            audio.body instanceof Uint8Array ? Buffer.from(audio.body.buffer, audio.body.byteOffset, audio.body.byteLength) : audio.body,
          )
      );
    },
  );

  app.post(
    '/tts/stream',
    {
      schema: {
        tags: ['tts'],
        summary: 'Stream raw PCM (16-bit little-endian, mono) while it is synthesized',
        description:
          'Chunked audio/pcm. Headers: X-Sample-Rate, X-Bits-Per-Sample, X-Channels, X-Audio-Format, X-Engine (the engine speaking) and ' +
          'X-Credits-Reserved (the price of the whole text, held while streaming). After the last byte, ' +
          'the HTTP trailer X-Credits-Used (declared in the Trailer header) gives the credits finally ' +
          'charged: only sentences whose audio was all sent are billed, the rest of the hold is refunded. ' +
          'A stream cut short (client gone, synthesis failure) ends without the trailer; the usage ' +
          'records have the charged figure either way.',
        security: [{ apiKey: [] }],
        body: StreamBody,
        response: {
          200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'audio/pcm, chunked' }),
          ...errorResponses(402, 413),
        },
      },
    },
    async function streamSpeech(request, reply) {
      const body = request.body as Static<typeof StreamBody>;
      const stream = await tts.stream(
        request.auth,
        {
          requestId: request.id,
          text: body.text,
          voice: body.voice,
          model: body.model,
          language: body.language,
          speed: body.speed,
          pitch: body.pitch,
          sampleRate: body.sample_rate,
        },
        abortOnClose(reply.raw),
        request.log,
      );
      return (
        reply
          .code(200)
          .header('Content-Type', 'audio/pcm')
          .header('X-Sample-Rate', String(stream.sampleRate))
          .header('X-Bits-Per-Sample', '16')
          .header('X-Channels', '1')
          .header('X-Audio-Format', 'pcm')
          .header('X-Credits-Reserved', String(stream.creditsReserved))
          .header('X-Engine', stream.engine)
          // Sent after the last audio byte (declared in a Trailer header; Fastify makes the response
          // chunked): the body ends only once the hold is settled, so this is the charged figure. A
          // stream cut short by a failure or by the client ends without trailers; a settlement that
          // failed (the store was unreachable: nothing charged yet) leaves the trailer out.
          .trailer('X-Credits-Used', async () => {
            const used = stream.creditsUsed();
            if (used === null) throw new Error('the stream was not settled');
            return String(used);
          })
          .send(stream.body)
      );
    },
  );
};
