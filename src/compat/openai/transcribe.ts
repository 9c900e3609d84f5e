// POST /v1/audio/transcriptions: OpenAI's request read whole (the classic fields through the native
// parser, the gpt-transcribe contract's through transcription-fields.ts), one SttService call,
// and the answer in the format asked: OpenAI's json (with the detected languages and, asked for,
// the recognizer's log-probabilities), diarized_json, a stream of deltas as the recording's pieces
// are recognized, or the classic formats (`send`, shared with translations).

import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { OPENAI_MAX_FIELDS, readUpload } from '../../http/upload.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import { parseSttFields, type SttRequest } from '../../stt/request.js';
import type { SttService, Transcription } from '../../stt/service.js';
import type { TranscriptWord } from '../../stt/transcript.js';
import type { OpenAiMapper } from './mapping.js';
import { parseOpenAiTranscriptionFields } from './transcription-fields.js';
import { REFERENCE_FIELDS } from './known-speakers.js';

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

function parseStreamField(v: string | undefined): boolean {
  if (v === undefined || v.trim() === '') return false;
  const t = v.trim().toLowerCase();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw new ApiError('INVALID_PARAMETER', {
    message: 'stream must be true or false.',
    details: { field: 'stream', provided: v.slice(0, 200) },
  });
}

/** temperature: checked as OpenAI does; the recognizers here decode greedily (temperature 0). */
function checkTemperature(v: string | undefined): number {
  if (v === undefined || v.trim() === '') return 0;
  const n = Number(v.trim());
  if (!/^\d*\.?\d+$/.test(v.trim()) || !Number.isFinite(n) || n < 0 || n > 1)
    throw new ApiError('INVALID_PARAMETER', {
      message: 'temperature must be a number from 0 to 1.',
      details: { field: 'temperature', provided: v.slice(0, 200) },
    });
  return n;
}

export interface TranscribeDeps {
  stt: SttService;
  mapper: OpenAiMapper;
  /** The classic formats (json, text, srt, verbose_json, vtt), as translations answer. */
  send: (reply: FastifyReply, t: Transcription, options: SttRequest) => FastifyReply;
}

export function openAiTranscribe({ stt, mapper, send }: TranscribeDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    stt.checkAccess(request.auth, 'batch');
    await stt.checkBalanceBeforeUpload(request.auth);
    const { fields, file, values } = await readUpload(request, { maxFields: OPENAI_MAX_FIELDS, largeFields: REFERENCE_FIELDS });
    const model = fields.get('model')?.trim();
    if (!model) throw new ApiError('INVALID_PARAMETER', { message: 'model is required (e.g. whisper-1).', details: { field: 'model' } });
    const streaming = parseStreamField(fields.get('stream'));
    const format = fields.get('response_format')?.trim() || 'json';
    const extra = parseOpenAiTranscriptionFields(values, fields, format);
    // Accepted and answered in a header: the recognizers here have no sampling temperature.
    if (checkTemperature(fields.get('temperature')) !== 0) reply.header('X-Parla-Ignored', 'temperature');
    // Only OpenAI's fields reach the native parser (Parla's diarize, keywords... are not OpenAI's).
    const native = new Map<string, string>([['model', mapper.sttModel(model)]]);
    for (const f of ['prompt', 'timestamp_granularities']) {
      const v = fields.get(f);
      if (v !== undefined) native.set(f, v);
    }
    if (extra.language !== undefined) native.set('language', extra.language);
    // diarized_json is OpenAI's json with speakers: the native request diarizes and answers json.
    native.set('response_format', extra.diarized ? 'json' : format);
    const options = { ...parseSttFields(native, 'universal'), diarize: extra.diarized };
    // keywords boost the recognizer as the native keywords do, after the prompt's words.
    options.keywords = [...extra.keywords, ...options.keywords].slice(0, 100);
    const audio = file ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength) : null;
    const signal = abortOnClose(reply.raw);
    const known = extra.knownSpeakers.length ? { knownSpeakers: { field: 'known_speaker_references', speakers: extra.knownSpeakers } } : {};
    const base = { requestId: request.id, endpoint: 'universal' as const, options, audio, ...known };
    const cutRules = extra.chunking ? { rules: extra.chunking.rules } : {};

    if (streaming)
      return streamTranscript(reply, (onText) => stt.transcribe(request.auth, { ...base, cut: { ...cutRules, onText } }, signal), extra);
    const t = await stt.transcribe(request.auth, { ...base, ...(extra.chunking ? { cut: cutRules } : {}) }, signal);
    reply.header('X-Credits-Used', String(t.credits)).header('X-Credits-Remaining', String(t.balance));
    if (extra.diarized) return reply.header('Content-Type', 'application/json').send(JSON.stringify(diarizedJson(t)));
    if (format === 'json') {
      return reply.header('Content-Type', 'application/json').send(
        JSON.stringify({
          text: t.transcript.text,
          ...detected(t, extra.languages),
          ...(extra.logprobs ? { logprobs: logprobsOf(t.transcript.words) } : {}),
          usage: usage(t),
        }),
      );
    }
    return send(reply, t, options);
  };
}

const usage = (t: Transcription) => ({ type: 'duration' as const, seconds: Math.ceil(t.duration) });

/** The detected language as gpt-transcribe reports it, for a request that listed languages[]. */
function detected(t: Transcription, languages: string[] | undefined) {
  return languages ? { languages: t.transcript.text === '' ? [] : [{ code: t.language.split('-')[0]! }] } : {};
}

/**
 * OpenAI's logprobs, one entry per recognized word (Parla's tokens are words): the natural log of
 * the recognizer's posterior probability of the word (PocketSphinx's ps_seg_prob with -bestpath).
 * A word the engine gave no score (Sherpa's recognizers report none) has no logprob.
 */
export function logprobsOf(words: TranscriptWord[]) {
  return words.map((w, i) => {
    const token = i === 0 ? w.punctuated : ` ${w.punctuated}`;
    return {
      token,
      bytes: [...Buffer.from(token, 'utf8')],
      ...(w.confidence !== undefined ? { logprob: +Math.log(Math.max(w.confidence, 1e-4)).toFixed(4) } : {}),
    };
  });
}

/** Speaker 0, 1, ... as OpenAI's letters A, B, ... (AA after Z). */
function speakerLetter(n: number): string {
  let s = '';
  let k = n;
  do {
    s = String.fromCharCode(65 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return s;
}

/** Each speaker label's name in the answer: a known speaker's name, else A, B, ... in order of appearance. */
function speakerLabels(t: Transcription): (label: number) => string {
  const names = t.transcript.speakerNames ?? [];
  const letters = new Map<number, string>();
  return (label) => {
    const name = names[label];
    if (name !== undefined) return name;
    if (!letters.has(label)) letters.set(label, speakerLetter(letters.size));
    return letters.get(label)!;
  };
}

function diarizedJson(t: Transcription) {
  const speaker = speakerLabels(t);
  return {
    task: 'transcribe' as const,
    duration: t.duration,
    text: t.transcript.text,
    segments: t.transcript.segments.map((s) => ({
      type: 'transcript.text.segment' as const,
      id: `seg_${s.id}`,
      start: s.start,
      end: s.end,
      text: s.text,
      speaker: speaker(s.speaker ?? 0),
    })),
    usage: usage(t),
  };
}

/**
 * stream=true: transcript.text.delta events as the recording's pieces are recognized (a long one is
 * cut at pauses and its pieces told in order as they finish), then transcript.text.done with the
 * whole transcript (formatted over the whole text, so it may differ from the deltas joined in
 * punctuation). A failure after the first event ends the stream with an `error` event.
 */
async function streamTranscript(
  reply: FastifyReply,
  run: (onText: (text: string) => void) => Promise<Transcription>,
  extra: { languages: string[] | undefined; logprobs: boolean; diarized: boolean },
): Promise<FastifyReply> {
  const out = new Readable({ read() {} });
  let first = true;
  let started!: () => void;
  const firstText = new Promise<void>((resolve) => (started = resolve));
  const running = run((text) => {
    out.push(sse({ type: 'transcript.text.delta', delta: first ? text : ` ${text}` }));
    first = false;
    started();
  });
  // Until the first piece is recognized nothing is sent: a refusal (credits, audio, model) is still
  // an ordinary error answer with its status.
  await Promise.race([firstText, running]);
  running.then(
    (t) => {
      if (extra.diarized) {
        for (const s of diarizedJson(t).segments) out.push(sse(s));
      }
      out.push(
        sse({
          type: 'transcript.text.done',
          text: t.transcript.text,
          ...detected(t, extra.languages),
          ...(extra.logprobs ? { logprobs: logprobsOf(t.transcript.words) } : {}),
          usage: usage(t),
        }),
      );
      out.push(null);
    },
    (err: unknown) => {
      const e = err instanceof ApiError ? err : new ApiError('INTERNAL_ERROR');
      out.push(sse({ type: 'error', error: { message: e.message, type: 'server_error', code: e.code.toLowerCase(), param: null } }));
      out.push(null);
    },
  );
  return reply.code(200).header('Content-Type', 'text/event-stream').header('Cache-Control', 'no-cache').send(out);
}
