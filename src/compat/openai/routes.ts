// The OpenAI audio dialect under /v1 (docs/compatibility.md): POST /audio/speech,
// /audio/transcriptions, /audio/translations and GET /models, for clients written against
// OpenAI's SDKs. An edge only: parse OpenAI's request, map its ids and voices (mapping.ts), call
// the same TtsService / SttService as the native routes (so billing, limits, key states, feature
// switches, metrics and usage are the native ones), render OpenAI's answer, and its errors in
// OpenAI's shape (errors.ts). Auth and rate limits are the app's hooks (Bearer is read on /v1).

import type { FastifyPluginAsync } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { SttService } from '../../stt/service.js';
import type { TtsService } from '../../tts/service.js';
import type { FfmpegEncoders } from '../../audio/ffmpeg-encoder.js';
import type { OpenAiMapping, ProductConfig } from '../../config.js';
import { OpenAiMapper } from './mapping.js';
import { sendOpenAiError } from './errors.js';
import { createSpeech, SpeechBody } from './speech.js';
import { createTranslation, sendTranscript } from './transcriptions.js';
import { openAiTranscribe } from './transcribe.js';

const OpenAiErrorSchema = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      type: Type.String(),
      param: Type.Union([Type.String(), Type.Null()]),
      code: Type.String(),
    }),
  },
  { description: "OpenAI's error shape" },
);
// Inline, not a shared schema added with addSchema: a plugin that adds a schema gets a schema
// controller of its own, without the app's validator compiler (strict types, null means absent).
const errorDocs = Object.fromEntries([400, 401, 402, 403, 413, 429, 500, 503].map((s) => [s, OpenAiErrorSchema]));

export interface OpenAiRouteOptions {
  tts: TtsService;
  stt: SttService;
  encoders: FfmpegEncoders;
  mapping: OpenAiMapping;
  /** The plans' TTS models: a mapped id is spoken with the best model the key's plan includes. */
  plans: ProductConfig['plans'];
}

export const openAiRoutes: FastifyPluginAsync<OpenAiRouteOptions> = async (app, { tts, stt, encoders, mapping, plans }) => {
  const mapper = new OpenAiMapper(mapping);
  // Every failure of these routes (hooks included: auth, rate limits) in OpenAI's shape. A path no
  // route has under /v1 is answered in the request's dialect by src/compat/models-routes.ts.
  app.setErrorHandler(async (err, request, reply) => sendOpenAiError(request, reply, err));
  await app.register(multipart, { throwFileSizeLimit: true });

  const doc = (summary: string, extra: Record<string, unknown>) => ({ tags: ['openai'], summary, security: [{ bearer: [] }], ...extra });
  const uploadDoc = (summary: string) =>
    doc(summary, {
      description:
        'multipart/form-data: file (audio, at most 25 MB), model (whisper-1, gpt-transcribe, gpt-4o-transcribe, gpt-4o-mini-transcribe or a Parla STT id), language or languages[], prompt, keywords[], include[] (logprobs), chunking_strategy (auto or server_vad), response_format (json, text, srt, verbose_json, vtt, diarized_json), known_speaker_names[] with known_speaker_references[] (diarized_json: up to 4 names, each with a data URL of 2-10 s of that voice), timestamp_granularities[] (word, segment; verbose_json), temperature, stream (true: transcript.text.delta events as pieces are recognized, then .done). docs/compatibility.md.',
      consumes: ['multipart/form-data'],
      response: errorDocs,
    });
  const speechDoc = doc('OpenAI: create speech', {
    body: SpeechBody,
    response: {
      200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'Audio, or text/event-stream with stream_format=sse.' }),
      ...errorDocs,
    },
  });
  app.post('/audio/speech', { schema: speechDoc }, createSpeech({ tts, encoders, mapper, plans }));
  app.post(
    '/audio/transcriptions',
    { schema: uploadDoc('OpenAI: transcribe audio') },
    openAiTranscribe({ stt, mapper, send: sendTranscript }),
  );
  app.post(
    '/audio/translations',
    { schema: uploadDoc('OpenAI: translate audio into English (served when an installed model translates: a multilingual Whisper)') },
    createTranslation({ stt, mapper }),
  );
  // GET /models and /models/{id} are src/compat/models-routes.ts (both dialects have them).
};
