// The OpenAI audio dialect under /v1 (docs/compatibility.md): POST /audio/speech,
// /audio/transcriptions, /audio/translations and GET /models, for clients written against
// OpenAI's SDKs. An edge only: parse OpenAI's request, map its ids and voices (mapping.ts), call
// the same TtsService / SttService as the native routes (so billing, limits, key states, feature
// switches, metrics and usage are the native ones), render OpenAI's answer, and its errors in
// OpenAI's shape (errors.ts). Auth and rate limits are the app's hooks (Bearer is read on /v1).

import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type, type Static } from 'typebox';
import { ApiError } from '../../errors.js';
import { readUpload } from '../../routes/v1/stt.js';
import { abortOnClose } from '../../routes/v1/tts.js';
import { parseSttFields, type SttRequest } from '../../stt/request.js';
import { render, RESPONSE_CONTENT_TYPES } from '../../stt/render.js';
import type { SttService, Transcription } from '../../stt/service.js';
import type { TtsService, TtsStreaming } from '../../tts/service.js';
import type { EncoderSlot, FfmpegEncoders } from '../../audio/ffmpeg-encoder.js';
import type { OpenAiMapping } from '../../config.js';
import { engineSpeed, OpenAiMapper, PCM_SAMPLE_RATE, SPEECH_CONTENT_TYPES, SPEECH_FORMAT_PLAN, SPEECH_FORMATS, unsupportedFormat, type SpeechFormat } from './mapping.js';
import { sendOpenAiError } from './errors.js';

const literalUnion = <T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) => Type.Union(values.map((v) => Type.Literal(v)), opts);

const SpeechBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 100, description: 'tts-1, tts-1-hd, gpt-4o-mini-tts (mapped, docs/compatibility.md) or a Parla TTS model id.' }),
    input: Type.String({ minLength: 1, maxLength: 4096, description: 'Text to speak, at most 4,096 characters.' }),
    voice: Type.String({ minLength: 1, maxLength: 100, description: "An OpenAI voice (alloy, ash, ballad, coral, echo, fable, nova, onyx, sage, shimmer, verse: mapped) or a Parla voice name." }),
    response_format: literalUnion(SPEECH_FORMATS, { default: 'mp3', description: 'mp3, opus (Ogg Opus), aac (ADTS), flac, wav, pcm (24 kHz s16le mono). opus and aac need ffmpeg on the server.' }),
    // Checked by engineSpeed (mapping.ts), not here: the shared validation message states the native 0.5-2.0 range.
    speed: Type.Unknown({ default: 1, description: 'A number from 0.25 to 4.0; spoken at the engines\' 0.5-2.0 (clamped, header X-Parla-Speed).' }),
    instructions: Type.Optional(Type.String({ maxLength: 4096, description: 'Accepted and ignored: no engine here takes style instructions (docs/compatibility.md).' })),
    stream_format: literalUnion(['audio', 'sse'] as const, { default: 'audio', description: 'audio: the file (pcm, opus, aac: as it is made); sse: speech.audio.delta / speech.audio.done events.' }),
  },
  { additionalProperties: true },
);
type SpeechBody = Static<typeof SpeechBody>;

const OpenAiErrorSchema = Type.Object(
  { error: Type.Object({ message: Type.String(), type: Type.String(), param: Type.Union([Type.String(), Type.Null()]), code: Type.String() }) },
  { description: "OpenAI's error shape" },
);
// Inline, not a shared schema added with addSchema: a plugin that adds a schema gets a schema
// controller of its own, without the app's validator compiler (strict types, null means absent).
const errorDocs = Object.fromEntries([400, 401, 402, 403, 413, 429, 500, 503].map((s) => [s, OpenAiErrorSchema]));

const ModelSchema = Type.Object({ id: Type.String(), object: Type.Literal('model'), created: Type.Integer(), owned_by: Type.String() });

export interface OpenAiRouteOptions {
  tts: TtsService;
  stt: SttService;
  encoders: FfmpegEncoders;
  mapping: OpenAiMapping;
}

/** One server-sent event carrying `data` as JSON. */
const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

/** OpenAI's verbose_json language: the language's English name, lower-cased ("english"). */
function languageName(code: string): string {
  const base = code.split('-')[0] ?? code;
  try {
    return (new Intl.DisplayNames(['en'], { type: 'language' }).of(base) ?? base).toLowerCase();
  } catch {
    return base;
  }
}

function parseStreamField(v: string | undefined): boolean {
  if (v === undefined || v.trim() === '') return false;
  const t = v.trim().toLowerCase();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw new ApiError('INVALID_PARAMETER', { message: 'stream must be true or false.', details: { field: 'stream', provided: v.slice(0, 200) } });
}

export const openAiRoutes: FastifyPluginAsync<OpenAiRouteOptions> = async (app, { tts, stt, encoders, mapping }) => {
  const mapper = new OpenAiMapper(mapping);
  // When this node started: the `created` of every model it lists.
  const created = Math.floor(Date.now() / 1000);
  // Every failure under /v1 (hooks included: auth, rate limits) in OpenAI's shape.
  app.setErrorHandler(async (err, request, reply) => sendOpenAiError(request, reply, err));
  app.setNotFoundHandler(async (request, reply) => sendOpenAiError(request, reply, new ApiError('NOT_FOUND', { message: `No endpoint ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}.` })));
  await app.register(multipart, { throwFileSizeLimit: true });

  const doc = (summary: string, extra: Record<string, unknown>) => ({ tags: ['openai'], summary, security: [{ bearer: [] }], ...extra });

  app.post('/audio/speech', { schema: doc('OpenAI: create speech', { body: SpeechBody, response: { 200: Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'Audio, or text/event-stream with stream_format=sse.' }), ...errorDocs } }) }, async (request, reply) => {
    const body = request.body as SpeechBody;
    const format = body.response_format as SpeechFormat;
    const plan = SPEECH_FORMAT_PLAN[format];
    const speed = engineSpeed(body.speed);
    if (typeof body.speed === 'number' && speed !== body.speed) reply.header('X-Parla-Speed', String(speed));
    const req = { requestId: request.id, text: body.input, voice: mapper.voice(body.voice), model: mapper.ttsModel(body.model), language: undefined, speed, pitch: undefined };
    // The client going away, or the encoder failing (then the synthesis feeding it must stop too).
    const stop = new AbortController();
    const signal = AbortSignal.any([abortOnClose(reply.raw), stop.signal]);
    const sseMode = body.stream_format === 'sse';
    const sendEvents = (audio: Readable) => reply.code(200).header('Content-Type', 'text/event-stream').header('Cache-Control', 'no-cache').send(Readable.from(speechEvents(audio)));

    if (typeof plan === 'object' && 'file' in plan) {
      const { audio, credits, balance } = await tts.generate(request.auth, { ...req, format: plan.file }, signal);
      reply.header('X-Credits-Used', String(credits)).header('X-Credits-Remaining', String(balance));
      const file = audio.body instanceof Uint8Array ? Buffer.from(audio.body.buffer, audio.body.byteOffset, audio.body.byteLength) : audio.body;
      // A file format is encoded whole (the encoders run on the worker pool per request); with sse
      // it is sent as deltas once made.
      if (sseMode) return sendEvents(Buffer.isBuffer(file) ? Readable.from([file]) : (file as Readable));
      return reply.code(200).header('Content-Type', SPEECH_CONTENT_TYPES[format]).header('Content-Length', String(audio.byteLength)).send(file);
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
  });

  const transcribe = async (request: FastifyRequest, reply: FastifyReply) => {
    stt.checkAccess(request.auth, 'batch');
    const { fields, file } = await readUpload(request);
    const model = fields.get('model')?.trim();
    if (!model) throw new ApiError('INVALID_PARAMETER', { message: 'model is required (e.g. whisper-1).', details: { field: 'model' } });
    const streaming = parseStreamField(fields.get('stream'));
    // Only OpenAI's fields reach the native parser (Parla's diarize, keywords... are not OpenAI's).
    const native = new Map<string, string>([['model', mapper.sttModel(model)]]);
    for (const f of ['language', 'prompt', 'response_format', 'timestamp_granularities']) {
      const v = fields.get(f);
      if (v !== undefined) native.set(f, v);
    }
    const options = parseSttFields(native, 'universal');
    const audio = file ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : null;
    const t = await stt.transcribe(request.auth, { requestId: request.id, endpoint: 'universal', options, audio }, abortOnClose(reply.raw));
    reply.header('X-Credits-Used', String(t.credits)).header('X-Credits-Remaining', String(t.balance));
    if (streaming) {
      // Recognition here is batch: the events carry the finished transcript segment by segment.
      const events = t.transcript.segments.map((s, i) => sse({ type: 'transcript.text.delta', delta: i === 0 ? s.text : ` ${s.text}` }));
      events.push(sse({ type: 'transcript.text.done', text: t.transcript.text, usage: { type: 'duration', seconds: Math.ceil(t.duration) } }));
      return reply.code(200).header('Content-Type', 'text/event-stream').header('Cache-Control', 'no-cache').send(events.join(''));
    }
    return sendTranscript(reply, t, options);
  };
  const uploadDoc = (summary: string) =>
    doc(summary, {
      description: 'multipart/form-data: file (audio, at most 25 MB), model (whisper-1, gpt-4o-transcribe, gpt-4o-mini-transcribe or a Parla STT id), language, prompt, response_format (json, text, srt, verbose_json, vtt), timestamp_granularities[] (word, segment; verbose_json), stream (true: transcript.text.delta / .done events).',
      consumes: ['multipart/form-data'],
      response: errorDocs,
    });
  app.post('/audio/transcriptions', { schema: uploadDoc('OpenAI: transcribe audio') }, transcribe);

  app.post('/audio/translations', { schema: uploadDoc('OpenAI: translate audio into English (served when an installed model translates: a multilingual Whisper)') }, async (request, reply) => {
    stt.checkAccess(request.auth, 'batch');
    const translating = stt.translatingModels();
    if (translating.length === 0) {
      // No product model is served by an engine that translates (PocketSphinx recognizes one
      // language; a multilingual Whisper translates): refused before the upload is read, so
      // nothing is decoded or billed.
      throw new ApiError('INVALID_REQUEST', {
        message: 'Translation is not available on this server: no installed speech model can translate. Use /v1/audio/transcriptions to transcribe in the spoken language.',
        resolution: 'Transcribe with /v1/audio/transcriptions, or install a multilingual Whisper model and bind it (docs/engines.md).',
        details: { field: 'model' },
      });
    }
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
    const t = await stt.transcribe(request.auth, { requestId: request.id, endpoint: 'universal', options, audio, task: 'translate' }, abortOnClose(reply.raw));
    reply.header('X-Credits-Used', String(t.credits)).header('X-Credits-Remaining', String(t.balance)).header('X-Parla-Model', t.model);
    return sendTranscript(reply, t, options);
  });

  app.get('/models', { schema: doc('OpenAI: list models', { response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelSchema) }), ...errorDocs } }) }, async () => ({
    object: 'list' as const,
    data: mapper.modelIds().map((id) => ({ id, object: 'model' as const, created, owned_by: 'parla' })),
  }));
  app.get('/models/:model', { schema: doc('OpenAI: retrieve a model', { params: Type.Object({ model: Type.String() }), response: { 200: ModelSchema, ...errorDocs } }) }, async (request) => {
    const { model } = request.params as { model: string };
    if (!mapper.modelIds().includes(model)) throw new ApiError('NOT_FOUND', { message: `The model "${model.slice(0, 100)}" does not exist here.`, details: { field: 'model' } });
    return { id: model, object: 'model' as const, created, owned_by: 'parla' };
  });
};

/** speech.audio.delta events (base64 audio, in the order made) and the closing speech.audio.done. */
async function* speechEvents(audio: Readable): AsyncGenerator<string> {
  for await (const chunk of audio) yield sse({ type: 'speech.audio.delta', audio: Buffer.from(chunk as Uint8Array).toString('base64') });
  yield sse({ type: 'speech.audio.done' });
}

/** A transcript (or translation) in the response format asked for: OpenAI's json and verbose_json, Parla's text, srt, vtt. */
function sendTranscript(reply: FastifyReply, t: Transcription, options: SttRequest): FastifyReply {
  const format = options.responseFormat;
  if (format === 'json') return reply.header('Content-Type', 'application/json').send(JSON.stringify({ text: t.transcript.text, usage: { type: 'duration', seconds: Math.ceil(t.duration) } }));
  if (format === 'verbose_json') return reply.header('Content-Type', 'application/json').send(JSON.stringify(verboseJson(t, options.granularities)));
  const body = render(format, t.transcript, { language: t.language, duration: t.duration, model: t.model, provider: t.provider, engine: t.engine, creditsUsed: t.credits, includeWords: false, includeSegments: false, diarized: false });
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
    ...(segments ? { segments: t.transcript.segments.map((s) => ({ id: s.id, seek: 0, start: s.start, end: s.end, text: s.text, avg_logprob: Math.log(Math.max(1e-6, s.avgConfidence ?? 0)) })) } : {}),
    ...(words ? { words: t.transcript.words.map((w) => ({ word: w.punctuated, start: w.start, end: w.end })) } : {}),
    usage: { type: 'duration', seconds: Math.ceil(t.duration) },
  };
}
