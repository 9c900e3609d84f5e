// EspeakEngine: eSpeak NG (GPL-3.0) for every language it has. Synthesis runs on the worker pool:
// audio from eSpeak's program compiled to WebAssembly (npm espeak-ng), word timings and a few
// voices from the library build (@echogarden/espeak-ng-emscripten); see espeak-worker.ts. Which catalogue
// language codes it serves, and with which eSpeak language voice, is data: languages.json next to
// this file (checked against the package's real voice list by test/engines/espeak-languages.test.ts).

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config.js';
import type { EspeakTask } from './espeak-worker.js';
import { liveChannel } from '../../audio/live-sender.js';
import { programPackageFiles } from './espeak-program.js';
import type { WorkerPool } from '../../workers/pool.js';
import { EngineError, type SpeechStyle, type SynthesisRequest, type SynthesisResult, type TtsEngine } from '../engine.js';

/** eSpeak's default speaking rate, words per minute. */
export const ESPEAK_BASE_WPM = 175;
/** The rate range eSpeak accepts, words per minute. */
export const ESPEAK_MIN_WPM = 80;
export const ESPEAK_MAX_WPM = 450;

export interface EspeakLanguage {
  /** Catalogue language code (BCP 47), e.g. "de-DE". */
  code: string;
  name: string;
  region: string;
  /** eSpeak NG language voice, e.g. "de", "en-us", "pt-br". */
  espeakVoice: string;
}

let languagesFile: EspeakLanguage[] | null = null;

/** The languages eSpeak NG serves, from src/engines/espeak/languages.json. */
export function espeakLanguages(): EspeakLanguage[] {
  languagesFile ??= JSON.parse(
    readFileSync(path.join(PROJECT_ROOT, 'src', 'engines', 'espeak', 'languages.json'), 'utf8'),
  ) as EspeakLanguage[];
  return languagesFile;
}

/** Catalogue code -> eSpeak language voice, for every language eSpeak serves. */
export function espeakLanguageMap(): Map<string, string> {
  return new Map(espeakLanguages().map((l) => [l.code, l.espeakVoice]));
}

let packageChecked: { problem: string | null } | null = null;

/** Null when both eSpeak NG packages and their data are installed; else why not. */
function packageProblem(): string | null {
  if (!packageChecked) {
    const problems: string[] = [];
    try {
      const main = createRequire(import.meta.url).resolve('@echogarden/espeak-ng-emscripten');
      if (!statSync(path.join(path.dirname(main), 'espeak-ng.data')).isFile()) throw new Error('no data file');
    } catch {
      problems.push('the npm package @echogarden/espeak-ng-emscripten (with espeak-ng.data) is not installed');
    }
    try {
      if (!statSync(programPackageFiles().wasm).isFile()) throw new Error('no wasm file');
    } catch {
      problems.push('the npm package espeak-ng (with espeak-ng.wasm) is not installed');
    }
    packageChecked = { problem: problems.length ? problems.join('; ') : null };
  }
  return packageChecked.problem;
}

export class EspeakEngine implements TtsEngine {
  readonly id = 'espeak';
  readonly nativeStyles: readonly SpeechStyle[] = ['normal', 'whisper', 'emphasis'];
  /** The program build says ~3,000 characters in ~0.25 s on one core (bench/tts-engines.ts). */
  readonly chunkChars = 3000;
  readonly wordEvents = true;
  private readonly languageVoices: ReadonlyMap<string, string>;

  /**
   * extraLanguages: catalogue code -> eSpeak language voice for codes the catalogue maps itself
   * (they override languages.json for the same code).
   */
  constructor(
    private readonly pool: WorkerPool,
    extraLanguages: ReadonlyMap<string, string> = new Map(),
  ) {
    this.languageVoices = new Map([...espeakLanguageMap(), ...extraLanguages].filter(([, voice]) => !NOT_SPOKEN_WELL.has(voice)));
  }

  status(): { available: boolean; reason?: string } {
    return packageProblem() ? { available: false, reason: packageProblem()! } : { available: true };
  }

  languages(): string[] {
    return packageProblem() ? [] : [...this.languageVoices.keys()];
  }

  /** The eSpeak language voice used for a catalogue code, if served. */
  voiceFor(language: string): string | undefined {
    return this.languageVoices.get(language);
  }

  /**
   * engineVoice is a variant (e.g. "m3", "f2") applied to the language's eSpeak voice, optionally
   * with eSpeak's base pitch (0-100) after a colon ("f2:60").
   */
  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const task = this.task(req);
    // The signal is checked around the task, not handed to the pool: piscina aborts a running
    // task by terminating its worker, which would throw away the warm eSpeak instance (0.4-3 s
    // to rebuild) to save one sentence's ~100 ms.
    signal?.throwIfAborted();
    const res = await this.pool.run('tts.espeak', task);
    signal?.throwIfAborted();
    return res;
  }

  async synthesizeLive(req: SynthesisRequest, outputRate: number, onAudio: (pcm: Int16Array) => void, signal?: AbortSignal): Promise<void> {
    const task = this.task(req);
    signal?.throwIfAborted();
    const channel = liveChannel(onAudio, signal);
    try {
      // As in synthesize, an abort does not stop the running task; audio after it is dropped.
      await this.pool.run('tts.espeak', { ...task, live: { port: channel.port, outputRate } }, { ports: [channel.port] });
      await channel.ended;
    } finally {
      channel.close();
    }
    signal?.throwIfAborted();
  }

  private task(req: SynthesisRequest): EspeakTask {
    const langVoice = this.languageVoices.get(req.language);
    if (!langVoice) throw new EngineError(this.id, `does not serve ${req.language}`, false);
    const [variant = '', pitchBase = '50'] = req.engineVoice.split(':');
    // Whisper is a voice variant of its own in eSpeak, so it replaces the voice's variant.
    const voice = req.style === 'whisper' ? `${langVoice}+whisper` : variant ? `${langVoice}+${variant}` : langVoice;
    return {
      text: req.text,
      voice,
      wpm: espeakWpm(req.speed),
      basePitch: Number(pitchBase),
      semitones: req.pitch,
      gainDb: req.gainDb ?? 0,
      emphasis: req.style === 'emphasis',
      ...(req.wordTimings ? { wordTimings: true } : {}),
    };
  }
}

/**
 * eSpeak language voices that are not offered: their speech is not understandable (issue 29,
 * item 3). Thai: this eSpeak NG's Thai rules read the vowel marks written above and around the
 * consonants as consonant clusters (ครับ -> kh'a3rmb, สวัสดี -> sa5wms'a2ds: a nasal and an
 * s out of nowhere, the vowel of ี lost); the text is already in NFC (Thai has no decomposed
 * forms), so no normalization on Parla's side changes it. The catalogue then lists no Thai.
 */
const NOT_SPOKEN_WELL = new Set(['th']);

/** About 300 characters, said four times: enough for V8 to compile the engine's hot code optimized. */
const WARM_UP_TEXT = (
  'Parla is starting. The speech engine is being prepared in every worker, so that the first ' +
  'request does not wait for it. This sentence, and the one before it, are never heard by anyone; ' +
  'they only make sure that the synthesizer has run once, on text of a typical length, before work arrives. '
).repeat(4);

/**
 * Starts eSpeak's program in each of `workers` idle pool workers (one concurrent task each, and
 * an idle pool hands concurrent tasks to distinct workers), so no request pays its start (~0.3 s)
 * and the JIT warm-up (the first long texts run ~1.5x slower). Meant for server start, before any request.
 */
export async function warmUpEspeak(engine: EspeakEngine, workers: number): Promise<void> {
  const req: SynthesisRequest = { text: WARM_UP_TEXT, engineVoice: '', language: 'en-US', speed: 1, pitch: 0, style: 'normal' };
  await Promise.all(Array.from({ length: workers }, () => engine.synthesize(req)));
}

/** Speed multiplier -> eSpeak words per minute, within the range eSpeak accepts. */
export function espeakWpm(speed: number): number {
  return Math.max(ESPEAK_MIN_WPM, Math.min(ESPEAK_MAX_WPM, ESPEAK_BASE_WPM * speed));
}
