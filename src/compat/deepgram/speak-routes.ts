// Deepgram's REST text-to-speech, POST /v1/speak (docs/compatibility.md, "Speak"): the query's
// model and media output settings (speak-mapping.ts), the body's text, one call to
// TtsService.generateEncoded (the same price, ledger kind, limits, feature switch and metrics as
// /api/v1/tts/generate), the audio with Deepgram's headers, every failure in Deepgram's error
// body (errors.ts). opus and aac: the same call makes raw PCM, which ffmpeg encodes inside the
// billed step (services.encoders, a place reserved before any credit is held; a node whose ffmpeg
// cannot encode the format refuses at no cost). Auth and rate limits are the app's hooks
// (Authorization: Token on /v1).

import type { FastifyPluginAsync } from 'fastify';
import type { DeepgramMapping, ProductConfig } from '../../config.js';
import { ApiError } from '../../errors.js';
import { encodeWhole, type EncoderSlot, type FfmpegEncoders } from '../../audio/ffmpeg-encoder.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import type { TtsService } from '../../tts/service.js';
import { sendDeepgramError } from './errors.js';
import { noFfmpegEncoder, queryOf, restSpeakParams, SPEAK_TEXT_LIMIT, SpeakMapper, speakQuery } from './speak-mapping.js';

export interface SpeakRouteOptions {
  tts: TtsService;
  encoders: FfmpegEncoders;
  mapping: DeepgramMapping;
  /** The plans' TTS models: an Aura id is spoken with the best model of its line the key's plan includes. */
  plans: ProductConfig['plans'];
}

/** The text of Deepgram's body, {"text": "..."}: a string of 1 to 2,000 characters. */
function bodyText(body: unknown): string {
  const text = body !== null && typeof body === 'object' ? (body as { text?: unknown }).text : undefined;
  if (text === undefined || text === null || (typeof text === 'string' && text.trim() === ''))
    throw new ApiError('MISSING_TEXT', { details: { field: 'text' } });
  if (typeof text !== 'string') throw new ApiError('INVALID_PARAMETER', { message: 'text must be a string.', details: { field: 'text' } });
  // Code points, as Deepgram counts them (a surrogate pair is one character).
  let n = 0;
  for (const _ of text)
    if (++n > SPEAK_TEXT_LIMIT)
      throw new ApiError('TEXT_TOO_LONG', {
        message: `text is longer than ${SPEAK_TEXT_LIMIT} characters.`,
        details: { field: 'text', limit: SPEAK_TEXT_LIMIT },
      });
  return text;
}

export const deepgramSpeakRoutes: FastifyPluginAsync<SpeakRouteOptions> = async (app, { tts, encoders, mapping, plans }) => {
  const mapper = new SpeakMapper(mapping);
  // Every failure of this route (hooks included: auth, rate limits, body parsing) in Deepgram's shape.
  app.setErrorHandler(async (err, request, reply) => sendDeepgramError(request, reply, err, 'speak'));

  app.post(
    '/speak',
    {
      schema: {
        tags: ['deepgram'],
        summary: 'Deepgram: text to speech (REST)',
        description:
          'Query: model (aura-2-<voice>-en, aura-<voice>-en or a Parla model[:voice]), encoding (mp3 default, linear16, mulaw, alaw, flac, opus (Ogg, 48000 Hz), aac (ADTS, 22050 Hz); opus and aac need ffmpeg on the server), container (wav or none for linear16/mulaw/alaw; ogg for opus), sample_rate, bit_rate (mp3: 32000 or 48000; opus: 4000-256000, default 12000; aac: 4000-132300, default 48000), speed. Body: {"text"}, at most 2,000 characters.',
        security: [{ bearer: [] }],
      },
    },
    async function createSpeech(request, reply) {
      // Read from the URL, not Fastify's parsed query: a repeated parameter is an array there.
      const q = speakQuery(queryOf(request.url));
      const params = restSpeakParams(q);
      const plan = request.auth.account.plan;
      const voice = mapper.voice(q.model, { name: plan, ttsModels: plans[plan].ttsModels });
      const text = bodyText(request.body);
      const req = {
        requestId: request.id,
        text,
        voice: voice.voice,
        model: voice.model,
        language: undefined,
        speed: params.speed,
        pitch: undefined,
        plainText: true,
      };
      const signal = abortOnClose(reply.raw);
      const ff = params.ffmpeg;
      let slot: EncoderSlot | null = null;
      if (ff) {
        if (!(await encoders.supports(ff.format))) throw noFfmpegEncoder(ff.format);
        // A place for the encoder before any credit is held: a full node refuses at no cost.
        slot = await encoders.reserve(ff.format, signal);
      }
      let encodeStarted = false;
      const encoder = slot;
      const finish =
        encoder && ff
          ? (pcm: Uint8Array) => {
              encodeStarted = true;
              return encodeWhole(encoder, pcm, params.spec.sampleRate, signal, ff.bitRate);
            }
          : undefined;
      let out: Awaited<ReturnType<TtsService['generateEncoded']>>;
      try {
        out = await tts.generateEncoded(request.auth, req, params.spec, signal, finish);
      } finally {
        // Never started: the place goes back (once started, the encoder frees it when it exits).
        if (!encodeStarted) slot?.release();
      }
      const body = out.audio.body;
      const bytes = body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body;
      return reply
        .code(200)
        .header('Content-Type', params.contentType)
        .header('Content-Length', String(out.audio.byteLength))
        .header('dg-request-id', request.id)
        .header('dg-model-name', voice.modelName)
        .header('dg-char-count', String(out.characters))
        .header('X-Credits-Used', String(out.credits))
        .header('X-Credits-Remaining', String(out.balance))
        .send(bytes);
    },
  );
};
