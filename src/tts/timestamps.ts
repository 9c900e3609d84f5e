// Synthesis with word timings (POST /tts/generate/with-timestamps): the audio of /tts/generate and,
// for every spoken word of the text, where it starts and ends on that audio. An engine that reports
// word events (eSpeak) gives its own; for any other (Flite, neural voices) the known text is
// force-aligned to the audio it made (PocketSphinx, English only). Timings are taken per engine
// call, then moved by everything placed before it in the answer: earlier chunks, break silences,
// and the engine padding trimmed around a break (documentPieces trims exactly the same way).

import { WorkerPool } from '../workers/pool.js';
import type { PcmAudio, SpeechStyle, WordTiming } from '../engines/engine.js';
import { sharedAligner, ALIGN_RATE, type AlignedSpan, type ForcedAligner } from '../engines/pocketsphinx/aligner.js';
import { ApiError } from '../errors.js';
import { trimSilence } from '../audio/pcm.js';
import { AudioBudget } from './audio-limits.js';
import { finishDocument } from './finish.js';
import type { OutputFormat } from './generate.js';
import { splitAtBreaks, type MarkupItem } from './markup.js';
import type { TtsJob } from './prepare.js';
import { asWritten, cleanWord, spokenPlan, type TextWord } from './spoken-words.js';

export { cleanWord, spokenWords, textWords, type TextWord } from './spoken-words.js';
import { chunkPlan, CHUNK_CHARS, concatPcm, renderRun, runLimited, type VoiceParams } from './speak-items.js';
import { VOCAL_REALIZATIONS } from './vocalizations.js';

export interface TimedSpeech {
  /** The encoded file. */
  audio: Uint8Array;
  format: OutputFormat;
  sampleRate: number;
  /** Seconds. */
  duration: number;
  /** One per spoken word of the text, in order; seconds on the audio. */
  words: Array<{ word: string; start: number; end: number }>;
}

/** Languages the aligner's acoustic model and dictionary cover. */
const ALIGNABLE = /^en(-|$)/i;

/**
 * Throws when this job's words cannot be timed here (an engine without word events speaking a
 * language the aligner cannot align, or no aligner): called before any credit is held.
 */
export function checkTimestamps(job: TtsJob, aligner: ForcedAligner = sharedAligner()): void {
  const engine = job.voice.engine;
  if (engine.wordEvents) return;
  if (!ALIGNABLE.test(job.language)) {
    throw new ApiError('LANGUAGE_NOT_SUPPORTED', {
      message: `Word timings for ${job.language} need an engine with word events; ${job.model} speaks ${job.language} with ${engine.id}, which has none.`,
      details: { provided: job.language },
    });
  }
  const st = aligner.status();
  if (!st.available)
    throw new ApiError('LANGUAGE_NOT_SUPPORTED', {
      message: `Word timings for ${engine.id} voices need forced alignment, which is unavailable here: ${st.reason}.`,
      details: { provided: job.language },
    });
}

export async function synthesizeWithTimestamps(
  pool: WorkerPool,
  job: TtsJob,
  format: OutputFormat,
  signal?: AbortSignal,
  aligner: ForcedAligner = sharedAligner(),
): Promise<TimedSpeech> {
  return WorkerPool.inFlow(() => timedInFlow(pool, job, format, signal, aligner));
}

interface TimedPcm extends PcmAudio {
  words: WordTiming[];
}

async function timedInFlow(
  pool: WorkerPool,
  job: TtsJob,
  format: OutputFormat,
  signal: AbortSignal | undefined,
  aligner: ForcedAligner,
): Promise<TimedSpeech> {
  const { segments, silences } = splitAtBreaks(job.items);
  const budget = new AudioBudget(job.maxAudioSeconds);
  budget.take(silences.reduce((a, b) => a + b, 0));
  const rendered = await Promise.all(segments.map((seg) => renderTimed(pool, job.voice, seg, signal, budget, aligner)));
  const rate = rendered.find((r) => r !== null)?.sampleRate ?? 16000;
  if (rendered.some((r) => r !== null && r.sampleRate !== rate)) throw new Error('segments rendered at different sample rates');

  // Where each segment lands in the answer, as documentPieces lays it out.
  const hasBreaks = silences.length > 0;
  const words: WordTiming[] = [];
  let cursor = 0;
  rendered.forEach((seg, i) => {
    if (seg && seg.samples.length) {
      const kept = hasBreaks ? trimSilence(seg.samples, rate) : seg.samples;
      const trimmed = (kept.byteOffset - seg.samples.byteOffset) / Int16Array.BYTES_PER_ELEMENT;
      const from = cursor / rate;
      const to = (cursor + kept.length) / rate;
      for (const w of seg.words) {
        const start = from + w.start - trimmed / rate;
        const end = from + w.end - trimmed / rate;
        words.push({ word: w.word, start: Math.min(to, Math.max(from, start)), end: Math.min(to, Math.max(from, end)) });
      }
      cursor += kept.length;
    }
    const gap = silences[i];
    if (gap !== undefined && gap > 0) cursor += Math.max(0, Math.round(gap * rate));
  });
  const duration = cursor / rate;
  // finishDocument moves the PCM to its worker: the timings were read above.
  const audio = await finishDocument(pool, rendered, silences, rate, format, signal);
  return { audio, format, sampleRate: rate, duration: round3(duration), words: orderedWords(words, duration) };
}

/** One segment (no breaks) rendered in order, with the words of its text runs on its own timeline. */
async function renderTimed(
  pool: WorkerPool,
  voice: VoiceParams,
  items: MarkupItem[],
  signal: AbortSignal | undefined,
  budget: AudioBudget,
  aligner: ForcedAligner,
): Promise<TimedPcm | null> {
  const jobs: Array<() => Promise<TimedPcm>> = [];
  const lanes = Math.max(1, pool.stats().threads);
  for (const item of items) {
    if (item.type === 'break') continue;
    if (item.type === 'text') {
      const style: SpeechStyle = item.whisper ? 'whisper' : item.emphasis ? 'emphasis' : 'normal';
      for (const chunk of chunkPlan(item.text, voice.engine.chunkChars ?? CHUNK_CHARS, lanes)) {
        if (SPEAKABLE.test(chunk)) jobs.push(() => renderChunk(pool, voice, chunk, style, signal, aligner));
      }
    } else {
      // A vocalization is markup: heard, but no word of the text.
      const v = VOCAL_REALIZATIONS[item.kind];
      const style: SpeechStyle = item.whisper ? 'whisper' : v.style;
      jobs.push(async () => ({
        ...(await renderRun(pool, voice, v.text, style, voice.speed * v.speed, voice.pitch + v.pitch, v.gain, signal)),
        words: [],
      }));
    }
  }
  if (jobs.length === 0) return null;
  const counted = jobs.map((job) => async () => {
    budget.check();
    const part = await job();
    budget.take(part.samples.length / part.sampleRate);
    return part;
  });
  const parts = await runLimited(counted, lanes);
  const rate = parts[0]!.sampleRate;
  const words: WordTiming[] = [];
  let offset = 0;
  for (const p of parts) {
    for (const w of p.words) words.push({ word: w.word, start: w.start + offset, end: w.end + offset });
    offset += p.samples.length / p.sampleRate;
  }
  return { ...concatPcm(parts, rate), words };
}

const SPEAKABLE = /[\p{L}\p{N}]/u;

async function renderChunk(
  pool: WorkerPool,
  voice: VoiceParams,
  text: string,
  style: SpeechStyle,
  signal: AbortSignal | undefined,
  aligner: ForcedAligner,
): Promise<TimedPcm> {
  // Timed on what is said (numbers, dates and abbreviations as words), given for the words as written.
  const plan = await spokenPlan(voice.language, text, !voice.engine.wordEvents);
  const run = await renderRun(pool, voice, text, style, voice.speed, voice.pitch, 1, signal, {
    spokenText: plan.engineText,
    wordTimings: true,
  });
  const pcm = { samples: run.samples, sampleRate: run.sampleRate };
  const duration = pcm.samples.length / pcm.sampleRate;
  if (plan.words.length === 0) return { ...pcm, words: [] };
  const spans = run.words ? spansFromEvents(plan.words, run.words) : await alignedSpans(pool, pcm, plan.words, signal, aligner);
  const written = asWritten(text, plan.words, spans);
  return { ...pcm, words: fillGaps(written.words, written.spans, duration) };
}

/**
 * Spans from an engine's word events: each event belongs to the word it falls in (or, between
 * words, to the next one: "$" of "$20" is read with "20"); a word starts at its first event and
 * ends where its last one ends. Words eSpeak reads without an event of their own (the parts of
 * "state-of-the-art", the morphemes of a Japanese phrase) stay null, for fillGaps.
 */
export function spansFromEvents(words: TextWord[], events: WordTiming[]): AlignedSpan[] {
  const spans: Array<{ start: number; end: number } | null> = words.map(() => null);
  for (const e of events) {
    if (e.textOffset === undefined) continue;
    // The first word ending after the event's position (binary search: words are in text order).
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (words[mid]!.to <= e.textOffset) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= words.length) continue;
    const s = spans[lo];
    spans[lo] = s ? { start: Math.min(s.start, e.start), end: Math.max(s.end, e.end) } : { start: e.start, end: e.end };
  }
  return spans;
}

/** Forced alignment of the chunk's words on its audio (16 kHz for the acoustic model). */
async function alignedSpans(
  pool: WorkerPool,
  pcm: PcmAudio,
  words: TextWord[],
  signal: AbortSignal | undefined,
  aligner: ForcedAligner,
): Promise<AlignedSpan[]> {
  const at16k =
    pcm.sampleRate === ALIGN_RATE
      ? pcm.samples
      : await pool.run(
          'audio.resample',
          { samples: pcm.samples, inputRate: pcm.sampleRate, outputRate: ALIGN_RATE },
          signal ? { signal } : {},
        );
  return aligner.align(
    at16k,
    words.map((w) => w.word),
    signal,
  );
}

/** Shortest time a word placed in a pause is given before the pause is judged too short for it. */
const MIN_WORD_SECONDS = 0.06;

/**
 * Spans for every word. A run of words nothing placed takes the pause after the word before it
 * when the pause can hold them; otherwise it shares that word's own span with it (the event or
 * alignment covered them all). Shares go by length in the engine's text (kana count as morae).
 * Each end is then kept at or before the next word's start.
 */
export function fillGaps(words: TextWord[], spans: AlignedSpan[], duration: number): WordTiming[] {
  const out = spans.map((s) => (s ? { start: s.start, end: Math.max(s.start, s.end) } : null));
  const weight = (k: number) => Math.max(1, words[k]!.to - words[k]!.from);
  let i = 0;
  while (i < out.length) {
    if (out[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < out.length && !out[j]) j++;
    const prev = i > 0 ? out[i - 1]! : null;
    const nextStart = j < out.length ? out[j]!.start : duration;
    const gapFrom = prev ? prev.end : 0;
    let members: number[];
    let from: number;
    let to: number;
    if (nextStart - gapFrom >= MIN_WORD_SECONDS * (j - i) || !prev) {
      members = [];
      from = gapFrom;
      to = Math.max(gapFrom, nextStart);
    } else {
      members = [i - 1];
      from = prev.start;
      to = Math.max(prev.end, from);
    }
    for (let k = i; k < j; k++) members.push(k);
    const total = members.reduce((n, k) => n + weight(k), 0);
    let t = from;
    for (const k of members) {
      const len = ((to - from) * weight(k)) / total;
      out[k] = { start: t, end: t + len };
      t += len;
    }
    i = j;
  }
  return out.map((s, k) => {
    const next = out[k + 1];
    const end = next && next.start >= s!.start ? Math.min(s!.end, next.start) : s!.end;
    return { word: words[k]!.word, start: s!.start, end };
  });
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The answer's words: milliseconds, each starting no earlier than the previous one ended and
 * ending at least 1 ms after its start, within the audio.
 */
export function orderedWords(words: WordTiming[], duration: number): TimedSpeech['words'] {
  const total = Math.round(duration * 1000);
  let prevEnd = 0;
  const out: TimedSpeech['words'] = [];
  for (const w of words) {
    const word = cleanWord(w.word);
    if (!word) continue;
    let start = Math.max(prevEnd, Math.round(w.start * 1000));
    let end = Math.max(start + 1, Math.round(w.end * 1000));
    if (end > total) end = Math.max(total, 1);
    if (start >= end) start = end - 1;
    out.push({ word, start: start / 1000, end: end / 1000 });
    prevEnd = end;
  }
  return out;
}
