// FestivalEngine: the Festival Speech Synthesis System (Debian `festival`, X11-style licence) with
// the HTS voice `cmu_us_slt_arctic_hts` (Debian `festvox-us-slt-hts`): statistical parametric
// synthesis at 32 kHz, the only English voice here with real content above 8 kHz, heard at
// least as well as Flite's slt. It costs ~2.7x Flite slt's CPU, so it serves the premium model
// (aura-max) only. One long-lived Festival process (festival-process.ts) keeps the voice loaded.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EnginePool } from '../../workers/pool.js';
import { EngineError, type SynthesisRequest, type SynthesisResult, type TtsEngine } from '../engine.js';
import { decodePcm16MonoWav } from '../../audio/wav.js';
import { FestivalProcess, schemeString } from './festival-process.js';

/** Festival voices this engine speaks, with the directory Debian installs each in. */
export const FESTIVAL_VOICES: Record<string, string> = {
  cmu_us_slt_arctic_hts: '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts',
};
export const FESTIVAL_LANGUAGES = ['en-US', 'en-GB', 'en-AU', 'en-IN'];

export class FestivalEngine implements TtsEngine {
  readonly id = 'festival';
  private readonly problem: string | null;
  private readonly processes = new Map<string, FestivalProcess[]>();

  constructor(
    private readonly pool: EnginePool,
    private readonly opts: { binary?: string; maxQueue?: number; /** processes per voice, default 2 */ maxProcesses?: number } = {},
  ) {
    this.problem = FestivalEngine.probe(opts.binary ?? 'festival');
  }

  /** Null when Festival runs and has its voice; else why not. */
  static probe(binary: string): string | null {
    const res = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 5000 });
    if (res.error || res.status !== 0) return `the festival binary (${binary}) is not installed (Debian package "festival")`;
    if (spawnSync('stdbuf', ['--version'], { timeout: 5000 }).status !== 0) return 'stdbuf (coreutils) is missing';
    const missing = Object.entries(FESTIVAL_VOICES).filter(([, dir]) => !existsSync(dir));
    return missing.length ? `Festival lacks the voice ${missing.map(([v]) => v).join(', ')} (Debian package "festvox-us-slt-hts")` : null;
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...FESTIVAL_LANGUAGES];
  }

  /**
   * The least busy process of the voice. A second process (~340 MB more) is started only when
   * every running one is busy: a long text's chunks then use two cores instead of one.
   */
  private process(voice: string): FestivalProcess {
    let list = this.processes.get(voice);
    if (!list) {
      list = Array.from({ length: Math.max(1, this.opts.maxProcesses ?? 2) }, () => new FestivalProcess({ setup: `(voice_${voice})`, binary: this.opts.binary, maxQueue: this.opts.maxQueue }));
      this.processes.set(voice, list);
    }
    const idleStarted = list.find((p) => p.started && p.load === 0);
    if (idleStarted) return idleStarted;
    const fresh = list.find((p) => !p.started && p.load === 0);
    if (fresh && list.some((p) => p.started)) return fresh;
    return list.reduce((a, b) => (b.load < a.load ? b : a));
  }

  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    if (this.problem) throw new EngineError(this.id, this.problem, false);
    if (!(req.engineVoice in FESTIVAL_VOICES)) throw new EngineError(this.id, `unknown voice ${req.engineVoice}`, false);
    const out = path.join(tmpdir(), `parla-festival-${randomUUID()}.wav`);
    // The HTS engine's own speech rate (-r) scales the state durations; Festival's
    // Duration_Stretch does not reach the HTS voice.
    const params = `(set! hts_engine_params (append ${req.engineVoice}::hts_engine_params (list '("-r" ${req.speed.toFixed(4)}))))`;
    const synth = `(utt.save.wave (utt.synth (Utterance Text ${schemeString(req.text)})) ${schemeString(out)} 'riff)`;
    let wav: Buffer;
    try {
      await this.process(req.engineVoice).run(`${params}\n${synth}`, signal);
      wav = await readFile(out).catch(() => {
        throw new EngineError(this.id, 'Festival wrote no audio');
      });
    } finally {
      await rm(out, { force: true });
    }
    const decoded = decodePcm16MonoWav(wav);
    if (!decoded) throw new EngineError(this.id, 'Festival wrote audio that is not 16-bit mono PCM');
    let samples = decoded.samples;
    if (req.pitch !== 0 && samples.length > 0) {
      // The HTS voice's F0 comes from its models (hts_engine's half-tone setting is not passed
      // through by Festival): shifted after synthesis, keeping the voice's formants.
      samples = await this.pool.run('audio.pitch', { samples, sampleRate: decoded.sampleRate, semitones: req.pitch }, { move: [samples] });
      signal?.throwIfAborted();
    }
    return { samples, sampleRate: decoded.sampleRate };
  }

  close(): void {
    for (const list of this.processes.values()) for (const p of list) p.close();
  }
}
