// Renders parsed markup items to PCM with one engine voice: text runs in their style, vocalizations
// in the voice's register. Styles the engine cannot render itself are transformed here (whisper:
// LPC resynthesis with noise in a worker; emphasis: slower, higher and louder).

import type { WorkerPool } from '../workers/pool.js';
import { PoolOverloadedError } from '../domain/overload.js';
import { EngineError, type PcmAudio, type SpeechStyle, type SynthesisRequest, type TtsEngine, type WordTiming } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import type { MarkupItem } from './markup.js';
import { VOCAL_REALIZATIONS } from './vocalizations.js';
import { splitSentences } from './sentences.js';
import { resampleForOutput } from './finish.js';
import type { AudioBudget } from './audio-limits.js';
import { speakableText } from './readings/readings.js';
import { voiceGainDb } from './levels.js';

/** Text longer than an engine's chunkChars (default this) is synthesized as parallel chunks. */
export const CHUNK_CHARS = 300;

/** Sentence-aligned chunks of at most about `size` characters. */
export function chunkText(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const chunks: string[] = [];
  let cur = '';
  for (const s of splitSentences(text)) {
    if (cur && cur.length + s.length > size) {
      chunks.push(cur);
      cur = '';
    }
    cur += s;
  }
  if (cur) chunks.push(cur);
  return chunks;
}

/**
 * The chunks a text is synthesized in on `lanes` parallel lanes (decision #105): sentence-aligned
 * chunks of about `size` characters, the last `lanes` of them cut into single sentences when there
 * are more than twice as many chunks as lanes. The lanes take chunks in order, so a request ended
 * with one lane on the last whole chunk while the others had nothing left; smaller last pieces end
 * the lanes closer together.
 */
export function chunkPlan(text: string, size: number, lanes: number): string[] {
  const chunks = chunkText(text, size);
  if (lanes < 2 || chunks.length <= lanes * 2) return chunks;
  const tail = chunks.splice(chunks.length - lanes);
  return [...chunks, ...tail.flatMap((c) => splitSentences(c))];
}

export interface VoiceParams {
  engine: TtsEngine;
  engineVoice: string;
  language: string;
  /** Final multiplier on the engine voice's rate (voice base rate x request speed). */
  speed: number;
  /** Final semitones (voice base pitch + request pitch). */
  pitch: number;
}

const EMPHASIS = { speed: 0.85, pitch: 2, gain: 1.35 };
const RETRIES = 2;
const PITCH_LIMIT = 24;

function clampSpeed(s: number): number {
  return Math.min(4, Math.max(0.25, s));
}

export function concatPcm(parts: PcmAudio[], sampleRate: number): PcmAudio {
  // One part (most requests): no copy of what can be megabytes of PCM.
  if (parts.length === 1 && parts[0]!.sampleRate === sampleRate) return { samples: parts[0]!.samples, sampleRate };
  const total = parts.reduce((n, p) => n + p.samples.length, 0);
  const out = new Int16Array(total);
  let o = 0;
  for (const p of parts) {
    if (p.sampleRate !== sampleRate) throw new Error(`cannot join ${p.sampleRate} Hz audio into ${sampleRate} Hz`);
    out.set(p.samples, o);
    o += p.samples.length;
  }
  return { samples: out, sampleRate };
}

/**
 * The engine call. `gain` (emphasis, vocalizations) joins the voice's calibrated fixed gain
 * (levels.ts), which the engine's output stage applies before its limiter: a gain applied to 16-bit
 * samples afterwards would clip them.
 */
function engineRequest(
  voice: VoiceParams,
  text: string,
  speed: number,
  pitch: number,
  style: SpeechStyle,
  wordTimings = false,
  gain = 1,
): SynthesisRequest {
  const p = Math.max(-PITCH_LIMIT, Math.min(PITCH_LIMIT, pitch));
  const gainDb = voiceGainDb(voice.engine.voiceMapping ?? voice.engine.id, voice.engineVoice, voice.language, p) + 20 * Math.log10(gain);
  const req: SynthesisRequest = {
    text,
    engineVoice: voice.engineVoice,
    language: voice.language,
    speed: clampSpeed(speed),
    pitch: p,
    style,
    gainDb,
  };
  return wordTimings ? { ...req, wordTimings } : req;
}

/**
 * An engine call with retries for transient engine failures; overload is never retried, nor a call
 * that `mayRetry` says has already delivered something.
 */
async function withRetries<T>(
  voice: VoiceParams,
  call: () => Promise<T>,
  signal?: AbortSignal,
  mayRetry: () => boolean = () => true,
): Promise<T> {
  let lastErr: unknown;
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    try {
      return await call();
    } catch (err) {
      lastErr = err;
      if (err instanceof ApiError || err instanceof PoolOverloadedError || signal?.aborted || !mayRetry()) throw err;
      if (err instanceof EngineError && !err.retryable) break;
    }
  }
  throw lastErr instanceof EngineError
    ? lastErr
    : new EngineError(voice.engine.id, `synthesis failed: ${(lastErr as Error)?.message ?? lastErr}`, false, { cause: lastErr });
}

async function synthesizeWithRetry(
  voice: VoiceParams,
  text: string,
  speed: number,
  pitch: number,
  style: SpeechStyle,
  signal?: AbortSignal,
  wordTimings = false,
  gain = 1,
): Promise<RenderedRun> {
  const res = await withRetries(
    voice,
    () => voice.engine.synthesize(engineRequest(voice, text, speed, pitch, style, wordTimings, gain), signal),
    signal,
  );
  return res.words
    ? { samples: res.samples, sampleRate: res.sampleRate, words: res.words }
    : { samples: res.samples, sampleRate: res.sampleRate };
}

/** A rendered run; `words` when word timings were asked for and the engine reports them. */
export interface RenderedRun extends PcmAudio {
  words?: WordTiming[];
}

/**
 * Renders one run of text in a style. `spokenText`: what the engine is given, when the caller
 * already converted the text (readings); `wordTimings`: ask the engine for its word events.
 */
export async function renderRun(
  pool: WorkerPool,
  voice: VoiceParams,
  text: string,
  style: SpeechStyle,
  speed: number,
  pitch: number,
  gain: number,
  signal?: AbortSignal,
  opts: { spokenText?: string; wordTimings?: boolean } = {},
): Promise<RenderedRun> {
  const native = voice.engine.nativeStyles ?? ['normal'];
  let s = speed;
  let p = pitch;
  let g = gain;
  let engineStyle: SpeechStyle = style;
  if (!native.includes(style)) {
    engineStyle = 'normal';
    if (style === 'emphasis') {
      s *= EMPHASIS.speed;
      p += EMPHASIS.pitch;
      g *= EMPHASIS.gain;
    }
  }
  // Kanji and hanja go to the engine as kana and hangul (readings/).
  const audio = await synthesizeWithRetry(
    voice,
    opts.spokenText ?? (await speakableText(voice.language, text)),
    s,
    p,
    engineStyle,
    signal,
    opts.wordTimings,
    g,
  );
  let samples = audio.samples;
  if (style === 'whisper' && engineStyle !== 'whisper' && samples.length > 0) {
    samples = await pool.run(
      'tts.whisper',
      { samples, sampleRate: audio.sampleRate },
      signal ? { signal, move: [samples] } : { move: [samples] },
    );
  }
  const out = { samples, sampleRate: audio.sampleRate };
  return audio.words ? { ...out, words: audio.words } : out;
}

export async function runLimited<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out = new Array<T>(jobs.length);
  let next = 0;
  // One failure fails the whole run: the other lanes start nothing more.
  let failed = false;
  const lane = async () => {
    while (!failed && next < jobs.length) {
      const i = next++;
      try {
        out[i] = await jobs[i]!();
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, lane));
  return out;
}

/**
 * Renders a run of items (no breaks) in order. Empty or whitespace-only text renders nothing. Each
 * rendered piece is taken from `budget`: past the request's ceiling, rendering stops (AUDIO_TOO_LONG).
 */
export async function renderItems(
  pool: WorkerPool,
  voice: VoiceParams,
  items: MarkupItem[],
  signal?: AbortSignal,
  budget?: AudioBudget,
): Promise<PcmAudio | null> {
  // Thunks, run at most `threads` at a time: one long request uses every worker without flooding
  // the shared queue (which would answer other requests 503).
  const jobs: Array<() => Promise<PcmAudio>> = [];
  const lanes = Math.max(1, pool.stats().threads);
  for (const item of items) {
    if (item.type === 'break') continue;
    if (item.type === 'text') {
      if (!/[\p{L}\p{N}]/u.test(item.text)) continue;
      const style: SpeechStyle = item.whisper ? 'whisper' : item.emphasis ? 'emphasis' : 'normal';
      for (const chunk of chunkPlan(item.text, voice.engine.chunkChars ?? CHUNK_CHARS, lanes)) {
        if (/[\p{L}\p{N}]/u.test(chunk)) jobs.push(() => renderRun(pool, voice, chunk, style, voice.speed, voice.pitch, 1, signal));
      }
    } else {
      const v = VOCAL_REALIZATIONS[item.kind];
      const style: SpeechStyle = item.whisper ? 'whisper' : v.style;
      jobs.push(() => renderRun(pool, voice, v.text, style, voice.speed * v.speed, voice.pitch + v.pitch, v.gain, signal));
    }
  }
  if (jobs.length === 0) return null;
  const counted = budget
    ? jobs.map((job) => async () => {
        budget.check();
        const pcm = await job();
        budget.take(pcm.samples.length / pcm.sampleRate);
        return pcm;
      })
    : jobs;
  const parts = await runLimited(counted, lanes);
  return concatPcm(parts, parts[0]!.sampleRate);
}

const SPEAKABLE = /[\p{L}\p{N}]/u;

/**
 * Renders items for /tts/stream at outputRate, handing the audio to onAudio in order. A single text
 * run in a style the engine renders itself comes live from an engine that can (eSpeak: resampled in
 * its worker, one hop less); anything else (vocalizations, transformed styles, Flite) is rendered
 * whole, then resampled on the pool, and handed over in one piece.
 */
export async function streamItems(
  pool: WorkerPool,
  voice: VoiceParams,
  items: MarkupItem[],
  outputRate: number,
  onAudio: (pcm: Int16Array) => void,
  signal?: AbortSignal,
): Promise<void> {
  const spoken = items.filter((i) => i.type !== 'break');
  const only = spoken.length === 1 && spoken[0]!.type === 'text' ? spoken[0]! : null;
  const engine = voice.engine;
  if (only?.type === 'text' && engine.synthesizeLive && chunkText(only.text, engine.chunkChars ?? CHUNK_CHARS).length === 1) {
    if (!SPEAKABLE.test(only.text)) return;
    const style: SpeechStyle = only.whisper ? 'whisper' : only.emphasis ? 'emphasis' : 'normal';
    if ((engine.nativeStyles ?? ['normal']).includes(style)) {
      const req = engineRequest(voice, await speakableText(voice.language, only.text), voice.speed, voice.pitch, style);
      let delivered = false;
      const deliver = (pcm: Int16Array) => {
        delivered = true;
        onAudio(pcm);
      };
      // Once audio went out, a retry would repeat it: only a failure before that is retried.
      await withRetries(
        voice,
        () => engine.synthesizeLive!(req, outputRate, deliver, signal),
        signal,
        () => !delivered,
      );
      return;
    }
  }
  const pcm = await renderItems(pool, voice, items, signal);
  if (pcm) onAudio(await resampleForOutput(pool, pcm, outputRate, signal));
}
