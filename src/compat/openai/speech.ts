// OpenAI's POST /v1/audio/speech (docs/compatibility.md): the file formats through
// TtsService.generate, pcm, opus and aac through TtsService.stream (opus and aac through an ffmpeg
// encoder as they are made), as the file or as speech.audio.delta events.

import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProductConfig } from '../../config.js';
import { Type, type Static } from 'typebox';
import { abortOnClose } from '../../edge/abort-on-close.js';
import type { TtsService, TtsStreaming } from '../../tts/service.js';
import type { EncoderSlot, FfmpegEncoders } from '../../audio/ffmpeg-encoder.js';
import {
  engineSpeed,
  PCM_SAMPLE_RATE,
  SPEECH_CONTENT_TYPES,
  SPEECH_FORMAT_PLAN,
  SPEECH_FORMATS,
  unsupportedFormat,
  type OpenAiMapper,
  type SpeechFormat,
} from './mapping.js';

const literalUnion = <T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    opts,
  );

export const SpeechBody = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'tts-1, tts-1-hd, gpt-4o-mini-tts (mapped, docs/compatibility.md) or a Parla TTS model id.',
    }),
    input: Type.String({ minLength: 1, maxLength: 4096, description: 'Text to speak, at most 4,096 characters.' }),
    voice: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'An OpenAI voice (alloy, ash, ballad, coral, echo, fable, nova, onyx, sage, shimmer, verse: mapped) or a Parla voice name.',
    }),
    response_format: literalUnion(SPEECH_FORMATS, {
      default: 'mp3',
      description: 'mp3, opus (Ogg Opus), aac (ADTS), flac, wav, pcm (24 kHz s16le mono). opus and aac need ffmpeg on the server.',
    }),
    // Checked by engineSpeed (mapping.ts), not here: the shared validation message states the native 0.5-2.0 range.
    speed: Type.Unknown({
      default: 1,
      description: "A number from 0.25 to 4.0; spoken at the engines' 0.5-2.0 (clamped, header X-Parla-Speed).",
    }),
    instructions: Type.Optional(
      Type.String({
        maxLength: 4096,
        description: 'Accepted and ignored: no engine here takes style instructions (docs/compatibility.md).',
      }),
    ),
    stream_format: literalUnion(['audio', 'sse'] as const, {
      default: 'audio',
      description: 'audio: the file (pcm, opus, aac: as it is made); sse: speech.audio.delta / speech.audio.done events.',
    }),
  },
  { additionalProperties: true },
);
type SpeechBody = Static<typeof SpeechBody>;

/** One server-sent event carrying `data` as JSON. */
export const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/** POST /v1/audio/speech. */
export function createSpeech(d: { tts: TtsService; encoders: FfmpegEncoders; mapper: OpenAiMapper; plans: ProductConfig['plans'] }) {
  const { tts, encoders, mapper, plans } = d;
  return async function createSpeech(request: FastifyRequest, reply: FastifyReply) {
    const body = request.body as SpeechBody;
    const format = body.response_format as SpeechFormat;
    const plan = SPEECH_FORMAT_PLAN[format];
    const speed = engineSpeed(body.speed);
    const model = mapper.ttsModel(body.model, { name: request.auth.account.plan, ttsModels: plans[request.auth.account.plan].ttsModels });
    if (typeof body.speed === 'number' && speed !== body.speed) reply.header('X-Parla-Speed', String(speed));
    // Which Parla model spoke (the mapped one, or the best of its line the plan includes).
    reply.header('X-Parla-Model', model);
    // OpenAI's input is plain text: read as a person would, never refused for its symbols (decision #37).
    const req = {
      requestId: request.id,
      text: body.input,
      voice: mapper.voice(body.voice),
      model,
      language: undefined,
      speed,
      pitch: undefined,
      plainText: true,
    };
    // The client going away, or the encoder failing (then the synthesis feeding it must stop too).
    const stop = new AbortController();
    const signal = AbortSignal.any([abortOnClose(reply.raw), stop.signal]);
    const sseMode = body.stream_format === 'sse';
    const sendEvents = (audio: Readable) =>
      reply
        .code(200)
        .header('Content-Type', 'text/event-stream')
        .header('Cache-Control', 'no-cache')
        .send(Readable.from(speechEvents(audio)));

    if (typeof plan === 'object' && 'file' in plan) {
      const { audio, credits, balance } = await tts.generate(request.auth, { ...req, format: plan.file }, signal);
      reply.header('X-Credits-Used', String(credits)).header('X-Credits-Remaining', String(balance));
      const file =
        audio.body instanceof Uint8Array ? Buffer.from(audio.body.buffer, audio.body.byteOffset, audio.body.byteLength) : audio.body;
      // A file format is encoded whole (the encoders run on the worker pool per request); with sse
      // it is sent as deltas once made.
      if (sseMode) return sendEvents(Buffer.isBuffer(file) ? Readable.from([file]) : (file as Readable));
      return reply
        .code(200)
        .header('Content-Type', SPEECH_CONTENT_TYPES[format])
        .header('Content-Length', String(audio.byteLength))
        .send(file);
    }

    // pcm, opus, aac: the native stream's PCM as it is synthesized (billed as /tts/stream), sent
    // as it is or through an ffmpeg encoder, also as it is made.
    let slot: EncoderSlot | null = null;
    if (typeof plan === 'object') {
      if (!(await encoders.supports(plan.ffmpeg))) throw unsupportedFormat(plan.ffmpeg);
      // A place for the encoder before any credit is held: a full node refuses at no cost.
      slot = await encoders.reserve(plan.ffmpeg, signal);
    }
    let stream: TtsStreaming;
    let audio: Readable;
    try {
      stream = await tts.stream(request.auth, { ...req, sampleRate: PCM_SAMPLE_RATE }, signal, request.log);
      audio = slot ? await slot.encode(stream.body, PCM_SAMPLE_RATE, signal) : stream.body;
    } catch (err) {
      slot?.release();
      stop.abort(err);
      throw err;
    }
    reply.header('X-Credits-Reserved', String(stream.creditsReserved));
    if (sseMode) return sendEvents(audio);
    return (
      reply
        .code(200)
        .header('Content-Type', SPEECH_CONTENT_TYPES[format])
        .header('X-Sample-Rate', String(PCM_SAMPLE_RATE))
        // As the native stream: the credits charged, after the last byte (absent when cut short).
        .trailer('X-Credits-Used', async () => {
          const used = stream.creditsUsed();
          if (used === null) throw new Error('the stream was not settled');
          return String(used);
        })
        .send(audio)
    );
  };
}

/** speech.audio.delta events (base64 audio, in the order made) and the closing speech.audio.done. */
async function* speechEvents(audio: Readable): AsyncGenerator<string> {
  for await (const chunk of audio) yield sse({ type: 'speech.audio.delta', audio: Buffer.from(chunk as Uint8Array).toString('base64') });
  yield sse({ type: 'speech.audio.done' });
}
