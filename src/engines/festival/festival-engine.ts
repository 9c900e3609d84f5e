// FestivalEngine: the Festival Speech Synthesis System (Debian `festival`, X11-style licence) with
// the HTS voice `cmu_us_slt_arctic_hts` (Debian `festvox-us-slt-hts`): statistical parametric
// synthesis at 32 kHz, the only English voice here with real content above 8 kHz, heard at
// least as well as Flite's slt. It costs ~2.7x Flite slt's CPU, so it serves the premium model
// (aura-max) only. One long-lived Festival process (festival-process.ts) keeps the voice loaded.
// Festival is the front end: it writes the utterance's HTS labels, and hts_engine (Debian
// `htsengine`, the same HTS engine as a program) synthesizes them with the voice's pitch as its
// half-tone offset on the F0, the one setting Festival does not pass through (issue 29 item 5).

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkerPool } from '../../workers/pool.js';
import { EngineError, type SynthesisRequest, type SynthesisResult, type TtsEngine } from '../engine.js';
import { decodePcm16MonoWav } from '../../audio/wav.js';
import { FestivalProcess, schemeString } from './festival-process.js';
import { table } from '../../domain/lookup.js';

/** Festival voices this engine speaks, with the directory Debian installs each in. */
export const FESTIVAL_VOICES: Record<string, string> = table({
  cmu_us_slt_arctic_hts: '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts',
});
export const FESTIVAL_LANGUAGES = ['en-US', 'en-GB', 'en-AU', 'en-IN'];

/** The HTS engine as a program: it takes the F0 offset (`-fm`, half-tones) Festival's module lacks. */
const HTS_ENGINE = 'hts_engine';
/** The HTS voice's rate. */
const HTS_RATE = 32_000;

/**
 * A synthesis method that stops after the front end and writes the utterance's full-context labels
 * (the HTS voice's own feature list) to the file named by `parla_labels`: what Festival's HTS
 * method hands its engine, given to the hts_engine program instead.
 */
const LABELS_METHOD = `(defSynthType ParlaLabels (let ((fd (fopen parla_labels "w"))) (mapcar (lambda (l) (format fd "%s\\n" l)) (hts_dump_feats_string_list utt hts_feats_list)) (fclose fd)) utt)`;

/** A shell word for a path (single-quoted). */
function shellWord(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

export class FestivalEngine implements TtsEngine {
  readonly id = 'festival';
  private readonly problem: string | null;
  private readonly processes = new Map<string, FestivalProcess[]>();

  constructor(
    private readonly pool: WorkerPool,
    private readonly opts: { binary?: string; maxQueue?: number /** processes per voice, default 2 */; maxProcesses?: number } = {},
  ) {
    this.problem = FestivalEngine.probe(opts.binary ?? 'festival');
  }

  /** Null when Festival runs and has its voice; else why not. */
  static probe(binary: string): string | null {
    const res = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 5000 });
    if (res.error || res.status !== 0) return `the festival binary (${binary}) is not installed (Debian package "festival")`;
    if (spawnSync('stdbuf', ['--version'], { timeout: 5000 }).status !== 0) return 'stdbuf (coreutils) is missing';
    // Without it a voice's pitch would be a shift of the finished audio, which the recognizer
    // understands 5-15 points worse (docs/benchmarks.md, issue 29 item 5): no Festival rather than that.
    if (spawnSync(HTS_ENGINE, [], { timeout: 5000 }).error)
      return `the ${HTS_ENGINE} program is not installed (Debian package "htsengine")`;
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
      list = Array.from(
        { length: Math.max(1, this.opts.maxProcesses ?? 2) },
        () =>
          new FestivalProcess({
            // The voice, then its synthesis replaced by the labels writer (script() says why).
            setup: `(voice_${voice})\n${LABELS_METHOD}\n(Parameter.set 'Synth_Method 'ParlaLabels)`,
            binary: this.opts.binary,
            maxQueue: this.opts.maxQueue,
          }),
      );
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
    const base = path.join(tmpdir(), `parla-festival-${randomUUID()}`);
    const out = `${base}.wav`;
    const labels = `${base}.lab`;
    let wav: Buffer;
    try {
      await this.process(req.engineVoice).run(this.script(req, out, labels), signal);
      const written = await readFile(out).catch(() => null);
      // Text with nothing to say ("...") has no labels, and hts_engine writes nothing for it.
      const labelled = written?.length ? null : await readFile(labels, 'utf8').catch(() => null);
      if (labelled !== null && !labelled.trim()) return { samples: new Int16Array(0), sampleRate: HTS_RATE };
      if (!written) throw new EngineError(this.id, 'Festival wrote no audio');
      wav = written;
    } finally {
      await Promise.all([rm(out, { force: true }), rm(labels, { force: true })]);
    }
    const decoded = decodePcm16MonoWav(wav);
    if (!decoded) throw new EngineError(this.id, 'Festival wrote audio that is not 16-bit mono PCM');
    // The output stage (DC high-pass, the voice's fixed gain, the true-peak limiter), in the pool;
    // no shift after synthesis: the pitch was the HTS engine's.
    const samples = await this.pool.run(
      'audio.voice',
      { samples: decoded.samples, sampleRate: decoded.sampleRate, semitones: 0, gainDb: req.gainDb ?? 0, dc: true },
      { move: [decoded.samples] },
    );
    signal?.throwIfAborted();
    return { samples, sampleRate: decoded.sampleRate };
  }

  /**
   * The Scheme of one synthesis: Festival's front end writes the utterance's labels, and the
   * hts_engine program, started from Festival's process (not this one's: forking the service
   * stalls its event loop, src/process/spawner.ts), synthesizes them: `-r` the speech rate (it
   * scales the state durations; Festival's Duration_Stretch does not reach the HTS voice), `-fm`
   * the pitch in half-tones. Festival's own HTS module cannot move the F0 (it does not pass the
   * half-tone setting on), and a shift of its finished audio (WSOLA, resampling, the LPC envelope
   * laid back) cost the recognizer 12-16 points at +2..+4 semitones; the vocoder given a moved F0
   * keeps the voice's spectral envelope exactly, as Flite moves slt's (decision #82). At the voice's
   * own pitch the program was also heard a little better than Festival's module (7.8% against
   * 10.4% word errors on 20 sentences), so every call takes this one path.
   */
  private script(req: SynthesisRequest, out: string, labels: string): string {
    const voiceFile = path.join(FESTIVAL_VOICES[req.engineVoice]!, 'hts', `${req.engineVoice}.htsvoice`);
    const command = [
      HTS_ENGINE,
      '-m',
      shellWord(voiceFile),
      '-fm',
      req.pitch.toFixed(4),
      '-r',
      req.speed.toFixed(4),
      '-ow',
      shellWord(out),
      shellWord(labels),
    ];
    return [
      `(set! parla_labels ${schemeString(labels)})`,
      `(utt.synth (Utterance Text ${schemeString(req.text)}))`,
      `(system ${schemeString(`${command.join(' ')} 2>/dev/null`)})`,
    ].join('\n');
  }

  close(): void {
    for (const list of this.processes.values()) for (const p of list) p.close();
  }
}
