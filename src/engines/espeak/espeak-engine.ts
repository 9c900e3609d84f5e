// EspeakEngine: eSpeak NG (GPL-3.0, via @echogarden/espeak-ng-emscripten) for every language it
// has. Synthesis runs on the worker pool; the catalogue language codes it serves come from
// src/catalog/data/languages.json (each language names its eSpeak voice).

import type { EnginePool } from '../pool.js';
import type { SpeechStyle, SynthesisRequest, SynthesisResult, TtsEngine } from '../engine.js';

/** eSpeak's default speaking rate, words per minute. */
export const ESPEAK_BASE_WPM = 175;

export class EspeakEngine implements TtsEngine {
  readonly id = 'espeak';
  readonly nativeStyles: readonly SpeechStyle[] = ['normal', 'whisper', 'emphasis'];

  /** languageVoices: catalogue code -> eSpeak language voice (e.g. "de-DE" -> "de"). */
  constructor(
    private readonly pool: EnginePool,
    private readonly languageVoices: ReadonlyMap<string, string>,
  ) {}

  status(): { available: boolean; reason?: string } {
    return { available: true };
  }

  languages(): string[] {
    return [...this.languageVoices.keys()];
  }

  /**
   * engineVoice is a variant (e.g. "m3", "f2") applied to the language's eSpeak voice, optionally
   * with a base pitch after a colon ("f2:60").
   */
  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const langVoice = this.languageVoices.get(req.language);
    if (!langVoice) throw new Error(`eSpeak does not serve ${req.language}`);
    const [variant = '', pitchBase = '50'] = req.engineVoice.split(':');
    const voice = req.style === 'whisper' ? `${langVoice}+whisper` : variant ? `${langVoice}+${variant}` : langVoice;
    const res = await this.pool.run(
      'tts.espeak',
      { text: req.text, voice, wpm: ESPEAK_BASE_WPM * req.speed, basePitch: Number(pitchBase), semitones: req.pitch, emphasis: req.style === 'emphasis' },
      signal ? { signal } : {},
    );
    return res;
  }
}
