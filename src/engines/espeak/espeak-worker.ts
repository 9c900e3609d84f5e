// eSpeak NG inside a worker thread. Audio comes from eSpeak's program compiled to WebAssembly
// (espeak-program.ts: about native speed). Word timings need eSpeak's callbacks, which only the
// library build has (@echogarden/espeak-ng-emscripten, wasm2js, 3-5x slower): a request that asks
// for them is synthesized there, as are the few voices only that build has (Catalan dialects,
// Faroese, Karakalpak, Tigrinya), with one instance per worker created on first use (~0.4 s) and
// reused. The library build's input is always SSML, so plain text is escaped, and the word events
// (positions in that SSML) are mapped back to the caller's text.

import EspeakInitializer from '@echogarden/espeak-ng-emscripten';
import { voiceOutput } from '../../audio/dsp/voice-output.js';
import { Leveler } from '../../audio/dsp/level.js';
import { LiveSender, postWhole, type LiveDelivery } from '../../audio/live-sender.js';
import type { WordTiming } from '../engine.js';
import { programHasVoice, programStartedInThisThread, speakWithProgram } from './espeak-program.js';
import { voiceFileFor } from './voice-files.js';

interface EspeakEvent {
  type: string;
  /** 1-based character position in the SSML input. */
  text_position: number;
  word_length: number;
  /** Milliseconds from the start of the utterance. */
  audio_position: number;
  id?: number | string;
}

interface EspeakInstance {
  samplerate: number;
  rate: number;
  pitch: number;
  set_voice(name: string): number;
  synthesize(ssml: string, cb: (samples: Int16Array | undefined, events: EspeakEvent[]) => boolean): void;
  list_voices(): Array<{ name: string; identifier: string; languages: Array<{ name: string; priority: number }> }>;
}

let instance: Promise<EspeakInstance> | null = null;

function engine(): Promise<EspeakInstance> {
  instance ??= (async () => {
    const m = (await (EspeakInitializer as unknown as () => Promise<{ eSpeakNGWorker: new () => EspeakInstance }>)()) as {
      eSpeakNGWorker: new () => EspeakInstance;
    };
    return new m.eSpeakNGWorker();
  })();
  instance.catch(() => (instance = null));
  return instance;
}

/** Whether this thread has created the library build's instance (word timings, a few voices). */
export function libraryStartedInThisThread(): boolean {
  return instance !== null;
}

/** Whether this thread has started either eSpeak build (tests check the main thread never does). */
export function espeakLoadedInThisThread(): boolean {
  return instance !== null || programStartedInThisThread();
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Escapes plain text for eSpeak's SSML parser. */
export function escapeSsml(text: string): string {
  return text.replace(/[&<>]/g, (c) => ENTITIES[c]!);
}

/** The escaped text plus, for each of its characters, the index of the source character it came from. */
export function escapeWithOrigins(text: string): { escaped: string; origin: Int32Array } {
  let escaped = '';
  const origin: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const out = ENTITIES[c] ?? c;
    escaped += out;
    for (let k = 0; k < out.length; k++) origin.push(i);
  }
  return { escaped, origin: Int32Array.from(origin) };
}

const voiceFiles = new Map<string, string | null>();

/**
 * The library selects a voice by its file name; a language name goes to its voice file
 * (voice-files.ts). A variant eSpeak lacks falls back to the bare language voice rather than failing.
 */
function selectVoice(tts: EspeakInstance, voice: string): void {
  if (tts.set_voice(voice) === 0) return;
  const [name = '', variant] = voice.split('+');
  let file = voiceFiles.get(name.toLowerCase());
  if (file === undefined) {
    const voices = tts.list_voices().filter((v) => !v.identifier.startsWith('variant/'));
    file =
      voiceFileFor(
        voices.map((v) => ({ file: v.identifier, languages: v.languages })),
        name,
      )
        ?.split('/')
        .pop() ?? null;
    voiceFiles.set(name.toLowerCase(), file);
  }
  if (file && variant && tts.set_voice(`${file}+${variant}`) === 0) return;
  if (file && tts.set_voice(file) === 0) return;
  if (tts.set_voice(name) === 0) return;
  throw new Error(`eSpeak has no voice ${voice}`);
}

export interface EspeakTask {
  text: string;
  /** eSpeak voice with optional variant, e.g. "en-us+m3", "de+f2", "en-us+whisper". */
  voice: string;
  /** Words per minute (eSpeak's default is 175); eSpeak accepts 80-450. */
  wpm: number;
  /** eSpeak's own pitch base, 0-100 (50 is the voice's default). */
  basePitch: number;
  /** Semitones applied to the audio afterwards (exact, duration unchanged). */
  semitones: number;
  /** The voice's fixed gain before the limiter (src/audio/dsp/level.ts). */
  gainDb?: number;
  emphasis: boolean;
  /** Word timings wanted: synthesized by the (slower) library build, which reports them. */
  wordTimings?: boolean;
  /**
   * Live delivery (for /tts/stream): the audio is resampled to outputRate and posted on the port
   * (`{ pcm }` messages, then `{ end: true }`) ~100 ms at a time; the task's own result then
   * carries no samples. The program build posts once the whole text is synthesized (a sentence
   * takes it ~10-20 ms); the library build, with word timings, posts as it synthesizes unless a
   * pitch shift needs the whole utterance first (then it too posts the whole, in pieces).
   */
  live?: LiveDelivery;
}

export interface EspeakOutput {
  samples: Int16Array;
  sampleRate: number;
  words: WordTiming[];
}

function ssmlFor(task: EspeakTask, escaped: string): { open: string; ssml: string } {
  const open = `<speak>${task.emphasis ? '<emphasis level="strong">' : ''}`;
  return { open, ssml: `${open}${escaped}${task.emphasis ? '</emphasis>' : ''}</speak>` };
}

export async function synthesizeEspeak(task: EspeakTask): Promise<EspeakOutput> {
  if (!task.wordTimings && (await programHasVoice(task.voice))) return synthesizeWithProgram(task);
  return synthesizeWithLibrary(task);
}

async function synthesizeWithProgram(task: EspeakTask): Promise<EspeakOutput> {
  const input = task.emphasis ? ssmlFor(task, escapeSsml(task.text)).ssml : task.text;
  const audio = await speakWithProgram({
    input,
    ssml: task.emphasis,
    voice: task.voice,
    wpm: clampWpm(task.wpm),
    pitch: clampPitch(task.basePitch),
  });
  // The pitch shift stays in floating point until the output stage (dsp/level.ts): DC high-pass
  // (eSpeak's Klatt voice caleb sits far below zero while it speaks, dc-block.ts), the voice's
  // fixed gain, the true-peak limiter. The high-pass comes after the shift: before it, its phase
  // turn on a low fundamental misleads the shifter.
  const samples = voiceOutput({
    samples: audio.samples,
    sampleRate: audio.sampleRate,
    semitones: task.semitones,
    gainDb: task.gainDb ?? 0,
    dc: true,
  });
  if (task.live) {
    postWhole(task.live, samples, audio.sampleRate);
    return { samples: new Int16Array(0), sampleRate: task.live.outputRate, words: [] };
  }
  return { samples, sampleRate: audio.sampleRate, words: [] };
}

const clampWpm = (wpm: number) => Math.max(80, Math.min(450, Math.round(wpm)));
const clampPitch = (pitch: number) => Math.max(0, Math.min(99, Math.round(pitch)));

async function synthesizeWithLibrary(task: EspeakTask): Promise<EspeakOutput> {
  const tts = await engine();
  selectVoice(tts, task.voice);
  tts.rate = clampWpm(task.wpm);
  tts.pitch = clampPitch(task.basePitch);
  const { escaped, origin } = escapeWithOrigins(task.text);
  const { open, ssml } = ssmlFor(task, escaped);
  const chunks: Int16Array[] = [];
  // Event objects are views on emscripten memory that the next callback overwrites: copy now.
  const events: EspeakEvent[] = [];
  const live = task.live && task.semitones === 0 ? new LiveSender(task.live.port, tts.samplerate, task.live.outputRate) : null;
  // Live audio without a pitch shift goes through the output stage here, piece by piece (its
  // filter and limiter state span the pieces: the same samples as the whole); anything else once
  // it is whole, as in the program build.
  const stage = live ? new Leveler(tts.samplerate, { gainDb: task.gainDb ?? 0, dc: true }) : null;
  tts.synthesize(ssml, (samples, evs) => {
    if (samples?.length) {
      // Copied (process() makes a new array): the chunk is a view on emscripten memory that the
      // next callback reuses.
      if (live) live.push(stage!.push(samples));
      else chunks.push(samples.slice());
    }
    for (const e of evs) {
      if (e.type === 'word' || e.type === 'end' || (e.type === 'phoneme' && e.id === '')) {
        events.push({
          type: e.type,
          text_position: e.text_position,
          word_length: e.word_length,
          audio_position: e.audio_position,
          id: e.id ?? '',
        });
      }
    }
    return false;
  });
  const total = chunks.reduce((n, c) => n + c.length, 0);
  let samples: Int16Array = new Int16Array(total);
  let o = 0;
  for (const c of chunks) {
    samples.set(c, o);
    o += c.length;
  }
  if (!live) samples = voiceOutput({ samples, sampleRate: tts.samplerate, semitones: task.semitones, gainDb: task.gainDb ?? 0, dc: true });
  if (task.live) {
    if (live) {
      live.push(stage!.end());
      live.end();
    } else postWhole(task.live, samples, tts.samplerate);
    return { samples: new Int16Array(0), sampleRate: task.live.outputRate, words: [] };
  }
  return { samples, sampleRate: tts.samplerate, words: wordTimings(events, task.text, origin, open.length, total / tts.samplerate) };
}

/**
 * Word timings from eSpeak's events. A word ends at the first pause, sentence end or next word
 * after its start; eSpeak reports entities (&amp;) by their last character, which the origin map
 * sends back to the source character.
 */
function wordTimings(events: EspeakEvent[], text: string, origin: Int32Array, prefix: number, duration: number): WordTiming[] {
  const words: WordTiming[] = [];
  let lastPos = -1;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type !== 'word' || e.text_position === lastPos) continue;
    lastPos = e.text_position;
    const from = e.text_position - 1 - prefix;
    const to = from + e.word_length - 1;
    if (from < 0 || to >= origin.length) continue;
    const start = e.audio_position / 1000;
    let end = duration;
    for (let k = i + 1; k < events.length; k++) {
      const n = events[k]!;
      if (n.audio_position / 1000 > start && (n.type !== 'word' || n.text_position !== e.text_position)) {
        end = n.audio_position / 1000;
        break;
      }
    }
    const word = text.slice(origin[from]!, origin[to]! + 1);
    if (word.trim()) words.push({ word, start, end: Math.min(Math.max(end, start), duration), textOffset: origin[from]! });
  }
  return words;
}

export async function listEspeakVoices(): Promise<Array<{ identifier: string; languages: string[] }>> {
  const tts = await engine();
  return tts.list_voices().map((v) => ({ identifier: v.identifier, languages: v.languages.map((l) => l.name) }));
}
