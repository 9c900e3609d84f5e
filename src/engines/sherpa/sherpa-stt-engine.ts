// SherpaSttEngine: speech recognition with one installed sherpa-onnx model (Apache-2.0, npm
// sherpa-onnx-node), engine id "sherpa:<model name>" (e.g. "sherpa:whisper-base.en"). Only models
// the model manager recorded as verified (loaded once in a child process) become engines.
//
// - Offline models (Whisper, NeMo CTC) recognize recordings piece by piece (cut at pauses, at most
//   28 s a piece) and serve real time by re-decoding the growing utterance (stt-host.ts).
// - Streaming models (Zipformer transducer, Zipformer2 CTC) decode as audio arrives: interim
//   results are the stream's own partial hypothesis.
// The model loads on first use in a thread of its own and unloads when idle (model-lifecycle.ts).

import type { ModelRecord } from '../../models/store.js';
import { FORMAT_INFO } from '../../models/formats.js';
import { sherpaLoad } from '../../models/sherpa-config.js';
import { verifiedModels } from '../../models/store.js';
import {
  EngineError,
  type RecognitionOptions,
  type RecognitionResult,
  type RecognizedUtterance,
  type SttEngine,
  type SttStream,
} from '../engine.js';
import type { Lease, ModelLifecycle } from '../model-lifecycle.js';
import type { HostSetup } from './stt-host.js';
import { SttModelHost } from './stt-model-host.js';

const RATE = 16000;

export interface SherpaSttOptions {
  /** Requests allowed to wait on one model before SERVICE_OVERLOADED. */
  maxPending: number;
  /** Offline model in real time: an interim result re-decodes at most once per this much new audio. */
  partialEverySeconds?: number;
  /** Offline model in real time: an interim result re-decodes at most this much of the utterance's end. */
  partialWindowSeconds?: number;
  /** Longest piece decoded at once (Whisper reads at most 30 s). */
  maxPieceSeconds?: number;
}

export type InstalledSttModel = ModelRecord & { dir: string };

/** What the memory budget counts for a model: what its loading check measured, at least its files' size. */
export function residentEstimateMB(model: ModelRecord): number {
  const measured = model.check ? model.check.rssLoadedMB - model.check.rssBeforeMB : 0;
  return Math.max(1, Math.ceil(Math.max(measured, model.sizeBytes / 1048576)));
}

export class SherpaSttEngine implements SttEngine {
  readonly id: string;
  readonly streaming: boolean;
  /** A multilingual Whisper translates into English (its `translate` task); an English-only one cannot. */
  readonly translates: boolean;
  private readonly multilingual: boolean;
  private readonly problem: string | null;

  constructor(
    readonly model: InstalledSttModel,
    private readonly lifecycle: ModelLifecycle,
    opts: SherpaSttOptions,
  ) {
    this.id = `sherpa:${model.name}`;
    this.streaming = FORMAT_INFO[model.format].streaming;
    this.multilingual = model.format === 'whisper' && model.languages.filter((l) => !l.includes('-')).length > 1;
    this.translates = this.multilingual;
    this.problem =
      model.kind !== 'stt' || model.status !== 'ok'
        ? `${model.name} is not a verified speech recognition model`
        : model.languages.length === 0
          ? `${model.name} does not say which languages it recognizes: add languages.txt (one code a line) to its folder and run \`parla models verify ${model.name}\``
          : null;
    const setup: HostSetup = {
      name: model.name,
      load: sherpaLoad(model.dir, model),
      streaming: this.streaming,
      multilingual: this.multilingual,
      partialEverySeconds: opts.partialEverySeconds ?? 0.6,
      partialWindowSeconds: opts.partialWindowSeconds ?? 10,
      maxPieceSeconds: opts.maxPieceSeconds ?? 28,
    };
    if (!this.problem) {
      lifecycle.register<SttModelHost>({
        name: model.name,
        sizeMB: residentEstimateMB(model),
        load: async () => {
          let host: SttModelHost | null = null;
          host = await SttModelHost.start(setup, this.id, opts.maxPending, () => {
            if (host) lifecycle.invalidate(model.name, host);
          });
          return host;
        },
        unload: (host) => host.stop(),
      });
    }
  }

  status(): { available: boolean; reason?: string } {
    return this.problem ? { available: false, reason: this.problem } : { available: true };
  }

  languages(): string[] {
    return this.problem ? [] : [...this.model.languages];
  }

  lifecycleModel(): string | undefined {
    return this.problem ? undefined : this.model.name;
  }

  /** The language to hand the model: '' lets a multilingual Whisper detect it; others ignore it. */
  private modelLanguage(opts: RecognitionOptions): string {
    if (typeof opts !== 'object' || opts === null || typeof opts.language !== 'string')
      throw new TypeError('options.language must be a string');
    if (!this.multilingual) return '';
    if (opts.detectLanguage) return '';
    const base = opts.language.split('-')[0]!.toLowerCase();
    if (!this.model.languages.includes(base))
      throw new EngineError(this.id, `language "${opts.language}" is not served (${this.model.languages.join(', ')})`, false);
    return base;
  }

  private async lease(signal?: AbortSignal): Promise<Lease<SttModelHost>> {
    if (this.problem) throw new EngineError(this.id, this.problem, false);
    return this.lifecycle.acquire<SttModelHost>(this.model.name, signal);
  }

  /** One: the model's thread decodes one call after another (stt-host.ts). */
  concurrency(): number {
    return 1;
  }

  async recognize(pcm16k: Int16Array, opts: RecognitionOptions, signal?: AbortSignal): Promise<RecognitionResult> {
    if (!(pcm16k instanceof Int16Array)) throw new TypeError('recognize(pcm16k): 16 kHz mono samples as an Int16Array');
    const language = this.modelLanguage(opts);
    const task = opts.task ?? 'transcribe';
    if (task === 'translate' && !this.translates)
      throw new EngineError(this.id, 'this model cannot translate (only a multilingual Whisper can)', false);
    const lease = await this.lease(signal);
    try {
      const out = await lease.model.recognize(pcm16k, language, task);
      return {
        engine: this.id,
        duration: pcm16k.length / RATE,
        utterances: out.utterances,
        ...(this.translates ? { task: out.task } : {}),
        ...(out.language ? { language: out.language } : {}),
      };
    } finally {
      lease.release();
    }
  }

  async openStream(opts: RecognitionOptions): Promise<SttStream> {
    const language = this.modelLanguage(opts);
    const lease = await this.lease();
    try {
      const sid = await lease.model.openStream(language);
      return new SherpaSttStream(this.id, lease, sid);
    } catch (err) {
      lease.release();
      throw err;
    }
  }
}

/** A live stream on a loaded model; it keeps the model loaded until closed. */
class SherpaSttStream implements SttStream {
  private closed = false;

  constructor(
    private readonly engineId: string,
    private readonly lease: Lease<SttModelHost>,
    private readonly sid: number,
  ) {}

  write(pcm16k: Int16Array): Promise<void> {
    if (!(pcm16k instanceof Int16Array)) throw new TypeError('write(pcm16k): 16 kHz mono samples as an Int16Array');
    if (this.closed) return Promise.reject(new EngineError(this.engineId, 'stream closed', false));
    return this.lease.model.write(this.sid, pcm16k);
  }

  async partial(): Promise<RecognizedUtterance | null> {
    if (this.closed) return null;
    return this.lease.model.partial(this.sid);
  }

  async finalizeUtterance(): Promise<RecognizedUtterance | null> {
    if (this.closed) return null;
    return this.lease.model.finalize(this.sid);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.lease.model.closeStream(this.sid);
    } finally {
      this.lease.release();
    }
  }
}

/** One engine per installed, verified speech recognition model (none when the manifest is unreadable: logged). */
export function createSherpaSttEngines(
  modelsDir: string,
  lifecycle: ModelLifecycle,
  opts: SherpaSttOptions,
  log?: { warn(obj: object, msg: string): void },
): SherpaSttEngine[] {
  let models: InstalledSttModel[];
  try {
    models = verifiedModels(modelsDir).filter((m) => m.kind === 'stt');
  } catch (err) {
    log?.warn({ err }, 'the models manifest cannot be read: no sherpa-onnx speech recognition');
    return [];
  }
  return models.map((m) => new SherpaSttEngine(m, lifecycle, opts));
}
