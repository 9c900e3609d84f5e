// The request bodies of POST /api/v1/tts/generate and /tts/stream (tts.ts; generate's also serves
// /tts/timestamps), and the content type of each audio format.

import { Type, type Static } from 'typebox';
import { OUTPUT_FORMATS, type OutputFormat } from '../../tts/generate.js';
import { TTS_MODELS } from '../../registry/model-registry.js';

const literalUnion = <T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    opts,
  );

export const GenerateBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: 5000,
      description: 'Text to speak, at most 5,000 characters; Aura models accept break and expression tags.',
    }),
    voice: Type.String({ minLength: 1, description: 'Voice name valid for the model and language (GET /voices).' }),
    model: literalUnion(TTS_MODELS, { default: 'aura-prime' }),
    language: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 16,
        description: 'Language code, e.g. en-US, de-DE, ja. Default en-US (a Flash voice: its own language).',
      }),
    ),
    speed: Type.Number({ minimum: 0.5, maximum: 2, default: 1 }),
    pitch: Type.Optional(Type.Number({ minimum: -20, maximum: 20, description: 'Semitones, -20 to +20; default 0.' })),
    format: literalUnion(OUTPUT_FORMATS, { default: 'wav' }),
  },
  { additionalProperties: true },
);

export const StreamBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 50000, description: 'Text to speak, at most 50,000 characters. Break tags are removed.' }),
    voice: Type.String({ minLength: 1 }),
    model: literalUnion(TTS_MODELS, { default: 'aura-prime' }),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 16, description: 'Default en-US (a Flash voice: its own language).' })),
    sample_rate: Type.Integer({ default: 24000, description: 'One of 8000, 16000, 22050, 24000, 44100, 48000.' }),
    speed: Type.Number({ minimum: 0.5, maximum: 2, default: 1 }),
    pitch: Type.Optional(Type.Number({ minimum: -20, maximum: 20, description: 'rapid-flash only.' })),
  },
  { additionalProperties: true },
);

export const CONTENT_TYPES: Record<OutputFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', flac: 'audio/flac' };

/** The synthesis request a /tts/generate body makes (plain and with timestamps alike). */
export function generateFields(requestId: string, body: Static<typeof GenerateBody>) {
  const { text, voice, model, language, speed, pitch, format } = body;
  return { requestId, text, voice, model, language, speed, pitch, format };
}
