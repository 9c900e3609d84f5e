// Worker-thread entry that holds one loaded sherpa-onnx recognition model and runs everything done
// with it: batch recognition and the model's live streams. One thread per loaded model, because
// sherpa-onnx-node has no call that frees a model (ending the thread does), its streaming decode
// is synchronous (it would stall the event loop), and its recognizers are not meant to decode
// concurrently (calls here run one after another; the main side bounds how many wait).
//
// Offline models (Whisper, NeMo CTC) also serve streams: the stream keeps the current utterance's
// audio, an interim result re-decodes at most its last `partialWindowSeconds`, at most once per
// `partialEverySeconds` of new audio (else the previous interim is repeated), and the final result
// decodes the whole utterance. An utterance longer than `maxPieceSeconds` is decoded in pieces as
// it grows, so memory and decode time stay bounded however long nobody pauses.
//
// Only models the model manager recorded as verified are loaded here: a malformed model ends the
// whole process from native code, where no handler can catch it.

import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { RecognizedUtterance, WordTiming } from '../engine.js';
import { Vad } from '../../audio/vad.js';
import type { SherpaLoad } from '../../models/sherpa-config.js';
import { piecesToWords, utteranceOf, type DecodedPiece } from './stt-words.js';
import { speechPieces } from './stt-segments.js';

export interface HostSetup {
  name: string;
  load: SherpaLoad;
  streaming: boolean;
  /** Whisper that detects the language when none is given. */
  multilingual: boolean;
  partialEverySeconds: number;
  partialWindowSeconds: number;
  maxPieceSeconds: number;
}

export type HostRequest =
  | { op: 'recognize'; id: number; samples: Int16Array; language: string; task: 'transcribe' | 'translate' }
  | { op: 'open'; id: number; sid: number; language: string }
  | { op: 'write'; id: number; sid: number; samples: Int16Array }
  | { op: 'partial'; id: number; sid: number }
  | { op: 'finalize'; id: number; sid: number }
  | { op: 'close'; id: number; sid: number };

export type HostReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export interface BatchOutcome {
  utterances: RecognizedUtterance[];
  /** The language Whisper detected (the most frequent over the pieces), when it was asked to. */
  language?: string;
  /** The task the recognizer was configured with for these pieces (Whisper's transcribe or translate). */
  task: 'transcribe' | 'translate';
}

interface Wave {
  samples: Float32Array;
  sampleRate: number;
}
interface NativeStream {
  acceptWaveform(w: Wave): void;
  inputFinished(): void;
}
interface RawResult {
  text: string;
  tokens?: string[];
  timestamps?: number[];
  lang?: string;
}
interface OfflineRec {
  createStream(): NativeStream;
  decodeAsync(s: NativeStream): Promise<RawResult>;
  setConfig(c: unknown): void;
}
interface OnlineRec {
  createStream(): NativeStream;
  isReady(s: NativeStream): boolean;
  decode(s: NativeStream): void;
  getResult(s: NativeStream): RawResult;
}
interface Sherpa {
  OfflineRecognizer: { createAsync(c: unknown): Promise<OfflineRec> };
  OnlineRecognizer: new (c: unknown) => OnlineRec;
}

const RATE = 16000;
/** Zeros fed after a streaming piece: a chunk is decoded only once frames past it have arrived. */
const TAIL_PADDING = new Float32Array(Math.round(0.8 * RATE));

const setup = workerData as HostSetup;
const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as Sherpa;

function toFloat(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}

function piece(r: RawResult): DecodedPiece {
  return { text: r.text ?? '', tokens: r.tokens ?? [], timestamps: r.timestamps ?? [], ...(r.lang ? { lang: r.lang } : {}) };
}

/** The loaded model, with every native call serialised. */
class Model {
  private tail: Promise<unknown> = Promise.resolve();
  private language: string;
  private task: 'transcribe' | 'translate' = 'transcribe';

  private constructor(
    private readonly offline: OfflineRec | null,
    readonly online: OnlineRec | null,
  ) {
    this.language = setup.load.api === 'OfflineRecognizer' ? String(whisperOf(setup.load.config)?.language ?? '') : '';
  }

  static async load(): Promise<Model> {
    if (setup.load.api === 'OfflineRecognizer') return new Model(await sherpa.OfflineRecognizer.createAsync(setup.load.config), null);
    if (setup.load.api === 'OnlineRecognizer') return new Model(null, new sherpa.OnlineRecognizer(setup.load.config));
    throw new Error(`${setup.name} is not a recognition model`);
  }

  serial<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Decodes one piece of audio on its own (call inside serial). */
  async decode(samples: Float32Array, language: string, task: 'transcribe' | 'translate' = 'transcribe'): Promise<DecodedPiece> {
    if (this.offline) {
      if (setup.multilingual && (language !== this.language || task !== this.task)) {
        // Whisper reads its language and task from the recognizer's configuration, not the stream's.
        const config = setup.load.config as { modelConfig: { whisper: Record<string, unknown> } };
        this.offline.setConfig({
          ...config,
          modelConfig: { ...config.modelConfig, whisper: { ...config.modelConfig.whisper, language, task } },
        });
        this.language = language;
        this.task = task;
      }
      const s = this.offline.createStream();
      s.acceptWaveform({ samples, sampleRate: RATE });
      return piece(await this.offline.decodeAsync(s));
    }
    const rec = this.online!;
    const s = rec.createStream();
    s.acceptWaveform({ samples, sampleRate: RATE });
    return finishOnline(rec, s);
  }
}

function whisperOf(config: Record<string, unknown>): Record<string, unknown> | undefined {
  return (config.modelConfig as { whisper?: Record<string, unknown> } | undefined)?.whisper;
}

function finishOnline(rec: OnlineRec, s: NativeStream): DecodedPiece {
  s.acceptWaveform({ samples: TAIL_PADDING, sampleRate: RATE });
  s.inputFinished();
  while (rec.isReady(s)) rec.decode(s);
  return piece(rec.getResult(s));
}

async function recognize(model: Model, pcm: Int16Array, language: string, task: 'transcribe' | 'translate'): Promise<BatchOutcome> {
  const vad = await Vad.create(2);
  let frames: boolean[];
  try {
    frames = vad.process(pcm);
  } finally {
    vad.free();
  }
  const frame = 320;
  const pieces = speechPieces(frames, Math.floor((setup.maxPieceSeconds * RATE) / frame));
  const samples = toFloat(pcm);
  const utterances: RecognizedUtterance[] = [];
  const langs = new Map<string, number>();
  for (const p of pieces) {
    const from = p.start * frame;
    const to = Math.min(samples.length, p.end * frame);
    if (to <= from) continue;
    const decoded = await model.serial(() => model.decode(samples.subarray(from, to), language, task));
    if (decoded.lang) langs.set(decoded.lang, (langs.get(decoded.lang) ?? 0) + 1);
    const u = utteranceOf(piecesToWords(decoded, from / RATE, from / RATE, to / RATE));
    if (u) utterances.push(u);
  }
  const detected = [...langs.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return {
    utterances,
    task: setup.multilingual ? task : 'transcribe',
    ...(setup.multilingual && language === '' && detected ? { language: detected } : {}),
  };
}

/** A live stream: the current utterance's audio (offline model) or native stream (streaming model). */
class HostStream {
  /** Samples written since the stream opened. */
  private written = 0;
  /** Where the current (not yet decoded) part of the utterance starts, in samples. */
  private partStart = 0;
  /** Words of the utterance's earlier parts, already decoded (long utterances). */
  private committed: WordTiming[] = [];
  private chunks: Float32Array[] = [];
  private buffered = 0;
  private native: NativeStream | null = null;
  private lastPartial: WordTiming[] = [];
  private lastPartialAt = -Infinity;

  constructor(
    private readonly model: Model,
    private readonly language: string,
  ) {}

  write(pcm: Int16Array): Promise<void> {
    const f = toFloat(pcm);
    return this.model.serial(async () => {
      this.written += f.length;
      if (this.model.online) {
        const rec = this.model.online;
        this.native ??= rec.createStream();
        this.native.acceptWaveform({ samples: f, sampleRate: RATE });
        while (rec.isReady(this.native)) rec.decode(this.native);
      } else {
        this.chunks.push(f);
        this.buffered += f.length;
      }
      if (this.written - this.partStart > setup.maxPieceSeconds * RATE) this.committed.push(...(await this.decodePart()));
    });
  }

  /** Decodes the current part whole and starts a new one (call inside serial). */
  private async decodePart(): Promise<WordTiming[]> {
    const start = this.partStart / RATE;
    const end = this.written / RATE;
    let decoded: DecodedPiece | null = null;
    if (this.model.online) {
      if (this.native) decoded = finishOnline(this.model.online, this.native);
      this.native = null;
    } else if (this.buffered > 0) {
      decoded = await this.model.decode(this.audio(), this.language);
    }
    this.chunks = [];
    this.buffered = 0;
    this.partStart = this.written;
    this.lastPartial = [];
    this.lastPartialAt = -Infinity;
    return decoded ? piecesToWords(decoded, start, start, end) : [];
  }

  private audio(): Float32Array {
    const all = new Float32Array(this.buffered);
    let at = 0;
    for (const c of this.chunks) {
      all.set(c, at);
      at += c.length;
    }
    this.chunks = [all];
    return all;
  }

  partial(): Promise<RecognizedUtterance | null> {
    return this.model.serial(async () => {
      const start = this.partStart / RATE;
      const end = this.written / RATE;
      if (this.model.online) {
        if (!this.native) return utteranceOf(this.committed);
        // No tail padding here: the last fraction of a second shows in the next interim.
        const words = piecesToWords(piece(this.model.online.getResult(this.native)), start, start, end);
        return utteranceOf([...this.committed, ...words]);
      }
      if (this.buffered === 0 || this.written - this.lastPartialAt < setup.partialEverySeconds * RATE)
        return utteranceOf([...this.committed, ...this.lastPartial]);
      const all = this.audio();
      const windowSamples = Math.min(all.length, Math.round(setup.partialWindowSeconds * RATE));
      const from = all.length - windowSamples;
      const windowStart = start + from / RATE;
      const decoded = await this.model.decode(all.subarray(from), this.language);
      // Words before the window keep what the previous interim said about them.
      const kept = this.lastPartial.filter((w) => w.end <= windowStart);
      this.lastPartial = [...kept, ...piecesToWords(decoded, windowStart, windowStart, end)];
      this.lastPartialAt = this.written;
      return utteranceOf([...this.committed, ...this.lastPartial]);
    });
  }

  finalize(): Promise<RecognizedUtterance | null> {
    return this.model.serial(async () => {
      const words = [...this.committed, ...(await this.decodePart())];
      this.committed = [];
      return utteranceOf(words);
    });
  }
}

async function main(): Promise<void> {
  const port = parentPort!;
  let model: Model;
  try {
    model = await Model.load();
  } catch (err) {
    port.postMessage({ ready: false, message: (err as Error).message });
    return;
  }
  const streams = new Map<number, HostStream>();
  port.on('message', (req: HostRequest) => {
    const run = async (): Promise<unknown> => {
      switch (req.op) {
        case 'recognize':
          return recognize(model, req.samples, req.language, req.task ?? 'transcribe');
        case 'open':
          streams.set(req.sid, new HostStream(model, req.language));
          return null;
        case 'close':
          streams.delete(req.sid);
          return null;
      }
      const s = streams.get(req.sid);
      if (!s) throw new Error('stream closed');
      if (req.op === 'write') return s.write(req.samples);
      if (req.op === 'partial') return s.partial();
      return s.finalize();
    };
    run().then(
      (value) => port.postMessage({ id: req.id, ok: true, value } satisfies HostReply),
      (err: unknown) =>
        port.postMessage({ id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) } satisfies HostReply),
    );
  });
  port.postMessage({ ready: true });
}

void main();
