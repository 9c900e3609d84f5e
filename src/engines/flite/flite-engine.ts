// FliteEngine: CMU Flite (BSD-style licence), English only. Its voices (kal16, slt, rms, awb) are
// the clearest English voices available offline here. Two ways to run it, with the same audio
// sample for sample (decision #88): libflite through the native addon (native/flite: voices kept
// loaded, synthesis on libuv's pool), when it is built; otherwise Debian's `flite` program, one
// child process per call. If neither can run, the engine says so and serves nothing.

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkerPool } from '../../workers/pool.js';
import { Slots } from '../slots.js';
import { type FliteNative, loadFliteNative } from './flite-native.js';
import { ProcessSpawner } from '../../process/spawner.js';
import { EngineError, type SynthesisRequest, type SynthesisResult, type TtsEngine } from '../engine.js';
import { decodePcm16MonoWav, decodeWav } from '../../audio/wav.js';
import { float32ToInt16 } from '../../audio/pcm.js';
import { liveChannel } from '../../audio/live-sender.js';
import { PoolOverloadedError } from '../../domain/overload.js';

export const FLITE_VOICES = ['kal16', 'slt', 'rms', 'awb'] as const;
/** English variants Flite reads (its voices are American and Scottish English). */
export const FLITE_LANGUAGES = ['en-US', 'en-GB', 'en-AU', 'en-IN'];

const TIMEOUT_MS = 60_000;

/**
 * Voices whose pitch Flite moves itself: the vocoder (slt, awb) or the diphone prosody (kal16) gets
 * a new F0 contour and keeps the voice's formants, where a shift of the finished audio moves them
 * too (a smaller or larger speaker, which the recognizer also understands much worse). Flite's
 * `f0_shift` scales only the contour's mean, so the standard deviation is scaled with it, or the
 * intonation would flatten as the pitch rises. The values are each voice's own F0 deviation in Hz
 * (the setting at which Flite's output is bit-identical to its default output). `rms` ignores
 * both settings and is shifted after synthesis.
 */
const NATIVE_F0_STDDEV_HZ: Record<string, number> = { slt: 27, awb: 25, kal16: 11 };

/**
 * An engine voice is a Flite voice name, optionally with a new F0 mean in Hz: `kal16@185` is kal16
 * speaking around 185 Hz (aura-lite's female English voices: kal16 is the one voice as fast as
 * eSpeak, and Flite's own F0 target keeps it clear where a shift of its audio does not). The F0
 * deviation is scaled with the mean (0.14 x mean, slt's own ratio), or the intonation would flatten.
 */
export function parseFliteVoice(engineVoice: string): { voice: string; f0Mean: number | null } | null {
  const at = engineVoice.indexOf('@');
  const voice = at < 0 ? engineVoice : engineVoice.slice(0, at);
  if (!(FLITE_VOICES as readonly string[]).includes(voice)) return null;
  if (at < 0) return { voice, f0Mean: null };
  const f0Mean = Number(engineVoice.slice(at + 1));
  return Number.isInteger(f0Mean) && f0Mean >= 50 && f0Mean <= 400 && NATIVE_F0_STDDEV_HZ[voice] !== undefined ? { voice, f0Mean } : null;
}

/** Flite settings that move a voice's whole F0 contour by `semitones`, or null if it cannot. */
export function nativePitchArgs(engineVoice: string, semitones: number): string[] | null {
  const parsed = parseFliteVoice(engineVoice);
  const stddev = parsed ? NATIVE_F0_STDDEV_HZ[parsed.voice] : undefined;
  if (!parsed || stddev === undefined) return null;
  const factor = 2 ** (semitones / 12);
  if (parsed.f0Mean !== null) {
    const args = [
      '--setf',
      `int_f0_target_mean=${parsed.f0Mean}`,
      '--setf',
      `int_f0_target_stddev=${(0.14 * parsed.f0Mean * factor).toFixed(3)}`,
    ];
    return semitones === 0 ? args : [...args, '--setf', `f0_shift=${factor.toFixed(5)}`];
  }
  if (semitones === 0) return [];
  return ['--setf', `f0_shift=${factor.toFixed(5)}`, '--setf', `int_f0_target_stddev=${(stddev * factor).toFixed(3)}`];
}

export class FliteEngine implements TtsEngine {
  readonly id: string;
  private readonly problem: string | null;
  private readonly voices: readonly string[];
  /** libflite through the addon, or null: the program serves. */
  private readonly native: FliteNative | null;
  /** The cap on syntheses at once: processes, or libuv threads (shared between engines, create.ts). */
  private readonly slots: Slots;
  /** Flite runs are started from a small helper process, not from this one (spawner.ts says why). */
  private readonly spawner: ProcessSpawner | null;
  /** The spawner is this engine's own (closed with it), not the node's shared one. */
  private readonly ownSpawner: boolean;

  constructor(
    private readonly pool: WorkerPool,
    private readonly opts: {
      /** The program, when it serves (default "flite"). */
      binary?: string;
      /** Syntheses at once, when no shared `slots` are given (default 4 processes, 2 threads). */
      maxProcesses?: number;
      /** A cap shared with other Flite engines (the addon's threads are the node's, not the engine's). */
      slots?: Slots;
      /** Default "flite". */
      id?: string;
      /** Default all of FLITE_VOICES. */
      voices?: readonly string[];
      /** The node's one helper process (services.ts); default: one of its own. */
      spawner?: ProcessSpawner;
      /** Use the addon when it is built (default true); false: always the program. */
      native?: boolean;
    } = {},
  ) {
    this.id = opts.id ?? 'flite';
    this.voices = opts.voices ?? FLITE_VOICES;
    const addon = opts.native === false ? null : loadFliteNative();
    this.native = addon && 'native' in addon ? addon.native : null;
    this.slots = opts.slots ?? new Slots(opts.maxProcesses ?? (this.native ? 2 : 4));
    if (this.native) {
      this.synthesizeLive = (req, rate, onAudio, signal) => this.streamNative(req, rate, onAudio, signal);
      this.problem = null;
      this.spawner = null;
      this.ownSpawner = false;
    } else {
      this.problem = FliteEngine.probe(opts.binary ?? 'flite');
      this.ownSpawner = opts.spawner === undefined;
      this.spawner = opts.spawner ?? new ProcessSpawner();
    }
  }

  /** Whether this engine runs libflite in process ("native") or the program ("program"). */
  get runs(): 'native' | 'program' {
    return this.native ? 'native' : 'program';
  }

  /** Null when the binary runs and has the voices; else why not. */
  static probe(binary: string): string | null {
    const res = spawnSync(binary, ['-lv'], { encoding: 'utf8', timeout: 5000 });
    if (res.error || res.status !== 0) return `the flite binary (${binary}) is not installed (Debian package "flite")`;
    const missing = FLITE_VOICES.filter((v) => !res.stdout.split(/\s+/).includes(v));
    return missing.length ? `flite lacks the voices ${missing.join(', ')}` : null;
  }

  /** Flite syntheses running now, processes or threads (for tests and metrics). */
  get processesRunning(): number {
    return this.slots.running;
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...FLITE_LANGUAGES];
  }

  /** The voice, the addon's (and program's) settings and the shift left for after synthesis. */
  private plan(req: SynthesisRequest): { voice: string; settings: string[]; semitones: number } {
    if (this.problem) throw new EngineError(this.id, this.problem, false);
    const parsed = parseFliteVoice(req.engineVoice);
    if (!parsed || !this.voices.includes(parsed.voice)) throw new EngineError(this.id, `unknown voice ${req.engineVoice}`, false);
    // Its voices only speak English: any other language would come out as English phonemes.
    if (!FLITE_LANGUAGES.includes(req.language)) throw new EngineError(this.id, `does not serve ${req.language}`, false);
    const pitchArgs = nativePitchArgs(req.engineVoice, req.pitch);
    // The program's --setf values, in its order; the addon takes the same strings.
    const settings = [`duration_stretch=${(1 / req.speed).toFixed(4)}`, ...(pitchArgs ?? []).filter((_, i) => i % 2 === 1)];
    return { voice: parsed.voice, settings, semitones: pitchArgs === null ? req.pitch : 0 };
  }

  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const { voice, settings, semitones } = this.plan(req);
    const release = await this.slots.take(signal);
    let decoded: { samples: Int16Array; sampleRate: number };
    try {
      decoded = this.native
        ? await this.runNative(this.native, voice, req.text, settings, signal)
        : await this.runProgram(voice, req.text, settings, signal);
    } finally {
      release();
    }
    // After synthesis, in the pool: the shift Flite cannot make itself (rms), then the output
    // stage (DC high-pass: rms comes out with a small offset, dc-block.ts; the voice's fixed gain;
    // the true-peak limiter). Not aborted in the pool: aborting a running task terminates its
    // worker (and the warm engines in it); the abort is honoured once it is done.
    const samples = await this.pool.run(
      'audio.voice',
      { samples: decoded.samples, sampleRate: decoded.sampleRate, semitones, gainDb: req.gainDb ?? 0, dc: true },
      { move: [decoded.samples] },
    );
    signal?.throwIfAborted();
    return { samples, sampleRate: decoded.sampleRate };
  }

  /**
   * For /tts/stream (decision #100), with the addon only: the audio leaves in ~0.1 s pieces as the
   * vocoder makes them, through the output stage and resampler in a pool worker (flite-live.ts);
   * the same samples as synthesize() then resampling. With the program it is not defined, and the
   * stream renders each sentence whole (src/tts/speak-items.ts).
   */
  readonly synthesizeLive?: TtsEngine['synthesizeLive'];

  private async streamNative(
    req: SynthesisRequest,
    outputRate: number,
    onAudio: (pcm: Int16Array) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const { voice, settings, semitones } = this.plan(req);
    const release = await this.slots.take(signal);
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
    // Shared with the worker, whose vocoder reads it between pieces.
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const onStop = () => Atomics.store(cancel, 0, 1);
    stop.addEventListener('abort', onStop, { once: true });
    const channel = liveChannel(onAudio, signal);
    try {
      await this.pool.run(
        'tts.flite-live',
        { voice, text: req.text, settings, cancel, semitones, gainDb: req.gainDb ?? 0, live: { port: channel.port, outputRate } },
        { ports: [channel.port] },
      );
      await channel.ended;
    } catch (e) {
      signal?.throwIfAborted();
      if (timeout.aborted) throw new EngineError(this.id, `flite took longer than ${TIMEOUT_MS} ms`, true, { cause: e });
      if (e instanceof PoolOverloadedError || e instanceof EngineError) throw e;
      throw new EngineError(this.id, (e as Error).message, false, { cause: e });
    } finally {
      stop.removeEventListener('abort', onStop);
      channel.close();
      release();
    }
    signal?.throwIfAborted();
  }

  /** libflite on libuv's pool; an abort or the timeout stops its vocoder at the next ~0.1 s. */
  private async runNative(
    native: FliteNative,
    voice: string,
    text: string,
    settings: string[],
    signal?: AbortSignal,
  ): Promise<{ samples: Int16Array; sampleRate: number }> {
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const cancel = new Int32Array(1);
    const onStop = () => Atomics.store(cancel, 0, 1);
    stop.addEventListener('abort', onStop, { once: true });
    try {
      return await native.synthesize(voice, text, settings, cancel);
    } catch (e) {
      signal?.throwIfAborted();
      if (timeout.aborted) throw new EngineError(this.id, `flite took longer than ${TIMEOUT_MS} ms`, true, { cause: e });
      // A Flite error is the text's (the same text fails again): not retried.
      throw new EngineError(this.id, (e as Error).message, false, { cause: e });
    } finally {
      stop.removeEventListener('abort', onStop);
    }
  }

  /** The `flite` program; it cannot write to a Node pipe (it opens its output by path), so it writes a temp file. */
  private async runProgram(
    voice: string,
    text: string,
    settings: string[],
    signal?: AbortSignal,
  ): Promise<{ samples: Int16Array; sampleRate: number }> {
    const out = path.join(tmpdir(), `parla-flite-${randomUUID()}.wav`);
    try {
      await this.run(['-voice', voice, ...settings.flatMap((s) => ['--setf', s]), '-t', text, '-o', out], signal);
      const wav = await readFile(out);
      // Flite writes mono 16-bit PCM: read it as is (the generic reader converts every sample, on
      // the event loop); anything else goes through the generic reader.
      return decodePcm16MonoWav(wav) ?? fromGeneric(decodeWav(wav));
    } finally {
      await rm(out, { force: true });
    }
  }

  private async run(args: string[], signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    let status;
    try {
      status = await this.spawner!.run(this.opts.binary ?? 'flite', args, signal ? AbortSignal.any([signal, timeout]) : timeout);
    } catch (e) {
      throw new EngineError(this.id, (e as Error).message, true, { cause: e });
    }
    signal?.throwIfAborted();
    if (status.code !== 0)
      throw new EngineError(this.id, `flite exited with ${status.code ?? status.signal}: ${status.stderr.trim().slice(0, 200)}`);
  }

  /** Stops the helper process Flite is started from (when it is this engine's own). */
  close(): void {
    if (this.ownSpawner) this.spawner?.close();
  }
}

function fromGeneric(d: { sampleRate: number; channels: Float32Array[] }): { sampleRate: number; samples: Int16Array } {
  return { sampleRate: d.sampleRate, samples: float32ToInt16(d.channels[0] ?? new Float32Array(0)) };
}
