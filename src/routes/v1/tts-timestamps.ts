// POST /api/v1/tts/generate/with-timestamps: the audio of /tts/generate (same body, validation,
// price and errors) as base64 in JSON, with each spoken word's start and end (src/tts/timestamps.ts).
// Thin: validate (schema) -> TtsService.generateWithTimestamps -> the JSON, streamed in pieces.

import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../tts/generate.js';
import type { TimedSpeech } from '../../tts/timestamps.js';
import type { TtsRouteOptions } from './tts.js';
import { GenerateBody, generateFields } from './tts-schemas.js';
import { abortOnClose } from '../../edge/abort-on-close.js';

const TimedResponse = Type.Object({
  success: Type.Literal(true),
  audio_base64: Type.String({ description: 'The audio file, base64.' }),
  format: Type.Unsafe<OutputFormat>({ type: 'string', enum: [...OUTPUT_FORMATS] }),
  sample_rate: Type.Integer({ description: 'Hz.' }),
  duration: Type.Number({ description: 'Seconds of audio.' }),
  credits_used: Type.Number(),
  words: Type.Array(
    Type.Object({
      word: Type.String({ description: 'The word as written in the text (markup removed).' }),
      start: Type.Number({ description: 'Seconds from the start of the audio.' }),
      end: Type.Number({ description: 'Seconds; after start, and no later than the next word starts.' }),
    }),
    { description: 'Every spoken word of the text, in order.' },
  ),
});

export const ttsTimestampRoutes: FastifyPluginAsyncTypebox<TtsRouteOptions> = async (app, { tts }) => {
  app.post(
    '/tts/generate/with-timestamps',
    {
      schema: {
        tags: ['tts'],
        summary: 'Synthesize a complete audio file with word timings',
        description:
          'The body, validation, price, limits and errors of POST /tts/generate. The answer is JSON: the file in base64 and, ' +
          'for every spoken word of the text in order, its start and end in seconds on that audio (break silences and speed ' +
          "included). eSpeak voices report their own word events; other engines' audio is force-aligned to the text " +
          '(English only: another language on such an engine is LANGUAGE_NOT_SUPPORTED). Headers as /tts/generate: ' +
          'X-Processing-Time-Ms, X-Credits-Used, X-Credits-Remaining.',
        security: [{ apiKey: [] }],
        body: GenerateBody,
        response: { 200: TimedResponse, ...errorResponses(402, 413) },
      },
    },
    async function generateSpeechWithTimestamps(request, reply) {
      const started = performance.now();
      const body = request.body as Static<typeof GenerateBody>;
      const { timed, credits, balance } = await tts.generateWithTimestamps(
        request.auth,
        generateFields(request.id, body),
        abortOnClose(reply.raw),
      );
      const answer = await timedJson(timed, credits);
      return (
        reply
          .code(200)
          .header('X-Processing-Time-Ms', String(Math.round(performance.now() - started)))
          .header('X-Credits-Used', String(credits))
          .header('X-Credits-Remaining', String(balance))
          .header('Content-Type', 'application/json; charset=utf-8')
          .header('Content-Length', String(answer.byteLength))
          // The TimedResponse JSON, already serialized (timedJson): Fastify sends a stream as it is.
          .send(answer.body as unknown as Static<typeof TimedResponse>)
      );
    },
  );
};

/** Bytes of audio base64-encoded per turn of the event loop (a multiple of 3: no padding inside). */
const BASE64_SLICE = 3 * 256 * 1024;

/**
 * The answer's JSON as a stream of its pieces. Not serialized whole: 20 minutes of WAV is 53 MB,
 * whose base64 took 93 ms and JSON.stringify of it 250 ms more, on the event loop. The base64 is
 * made slice by slice between turns of the event loop and needs no JSON escaping; the rest is small.
 */
async function timedJson(timed: TimedSpeech, credits: number): Promise<{ body: Readable; byteLength: number }> {
  const head = JSON.stringify({
    success: true,
    format: timed.format,
    sample_rate: timed.sampleRate,
    duration: timed.duration,
    credits_used: credits,
    words: timed.words,
  }).slice(0, -1);
  const pieces: Buffer[] = [Buffer.from(`${head},"audio_base64":"`)];
  const audio = Buffer.from(timed.audio.buffer, timed.audio.byteOffset, timed.audio.byteLength);
  for (let at = 0; at < audio.length; at += BASE64_SLICE) {
    pieces.push(Buffer.from(audio.subarray(at, at + BASE64_SLICE).toString('base64'), 'latin1'));
    if (at + BASE64_SLICE < audio.length) await nextTurn();
  }
  pieces.push(Buffer.from('"}'));
  return { body: Readable.from(pieces, { objectMode: false }), byteLength: pieces.reduce((n, p) => n + p.length, 0) };
}
