// Neural diarization from the operator's installed speaker models (decision #91): which ones serve
// (PARLA_DIARIZATION, PARLA_SPEAKER_EMBEDDING_MODEL, PARLA_SPEAKER_SEGMENTATION_MODEL), and their
// thread (speaker-host.ts) as one model of the lifecycle: loaded on first use, unloaded when idle or
// evicted like any recognizer. Never the only way: when the models cannot serve a request (not
// loadable, changed since their check, the thread gone, busy), diarize() answers
// null after one log line saying why, and the caller clusters with the built-in features.

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { DiarizationConfig } from '../../config/engines.js';
import { readOnnxMetadata } from '../../models/onnx-metadata.js';
import { checkSpeakerMetadata, speakerFormatOf } from '../../models/speaker-formats.js';
import { folderSize, verifiedModels, type ModelRecord } from '../../models/store.js';
import type { ModelLifecycle } from '../model-lifecycle.js';
import { ModelThread } from './model-thread.js';
import { residentEstimateMB } from './sherpa-stt-engine.js';
import type { SpeakerAnswer, SpeakerSetup } from './speaker-host.js';

const entry = import.meta.url.endsWith('.ts') ? './speaker-host-dev.mjs' : './speaker-host.js';
/**
 * Recordings queued on the speaker thread at most; past that a recording is diarized by the
 * built-in clustering in the engine pool rather than wait behind others (one thread, one at a time).
 */
export const MAX_WAITING = 4;

type Installed = ModelRecord & { dir: string };
type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };

export interface SpeakerDiarizer {
  /** The lifecycle's name of the speaker models ("speakers:<embedding>[+<segmentation>]"). */
  readonly name: string;
  /** Labels from the speaker models, or null (said in the log) when they cannot serve this request. */
  diarize(
    pcm: Int16Array,
    spans: Array<{ start: number; end: number }>,
    references: Int16Array[],
    signal?: AbortSignal,
  ): Promise<SpeakerAnswer | null>;
}

/**
 * Why a verified speaker model must not be loaded now (its file gone, changed since its loading
 * check, metadata sherpa-onnx would end the process on), or null. Cheap: a metadata read.
 */
export function speakerModelProblem(m: Installed): string | null {
  const file = path.join(m.dir, m.files.model ?? '');
  if (!m.files.model || !existsSync(file)) return `${m.name}: its model file is gone`;
  try {
    if (folderSize(m.dir) !== m.sizeBytes) return `${m.name} changed since its loading check (run \`parla models verify ${m.name}\`)`;
    const meta = readOnnxMetadata(file);
    if (speakerFormatOf(meta) !== m.format) return `${m.name} is no longer a ${m.format} model`;
    checkSpeakerMetadata(m.files.model, m.format as 'speaker-segmentation' | 'speaker-embedding', meta);
  } catch (err) {
    return `${m.name}: ${(err as Error).message}`;
  }
  return null;
}

/** The installed model of `format` to serve: the one named, else the first by name; null and why when none. */
function pick(models: Installed[], format: string, named: string | null, variable: string): { model: Installed | null; why: string } {
  if (named === 'none') return { model: null, why: `${variable}=none` };
  const found = named ? models.find((m) => m.name === named) : models.find((m) => m.format === format);
  if (!found)
    return { model: null, why: named ? `${variable}=${named} is no verified model (parla models list)` : `no ${format} model installed` };
  if (found.format !== format) return { model: null, why: `${variable}=${named} is a ${found.format} model, not ${format}` };
  return { model: found, why: '' };
}

/**
 * The speaker models this process diarizes with, registered with the lifecycle; null (and one log
 * line) when diarization is the built-in clustering: PARLA_DIARIZATION=builtin, or no usable
 * embedding model installed.
 */
export function createSpeakerDiarizer(
  modelsDir: string,
  config: DiarizationConfig,
  lifecycle: ModelLifecycle,
  log: Log,
): SpeakerDiarizer | null {
  if (config.mode === 'builtin') {
    log.info({ diarization: 'builtin' }, 'diarization: built-in clustering (PARLA_DIARIZATION=builtin)');
    return null;
  }
  let models: Installed[];
  try {
    models = verifiedModels(modelsDir).filter((m) => m.kind === 'speaker');
  } catch (err) {
    log.warn({ err }, 'diarization: the models manifest cannot be read; built-in clustering');
    return null;
  }
  const embedding = pick(models, 'speaker-embedding', config.embeddingModel, 'PARLA_SPEAKER_EMBEDDING_MODEL');
  if (!embedding.model) {
    const say = config.embeddingModel ? log.warn.bind(log) : log.info.bind(log);
    say({ diarization: 'builtin' }, `diarization: built-in clustering (${embedding.why})`);
    return null;
  }
  const segmentation = pick(models, 'speaker-segmentation', config.segmentationModel, 'PARLA_SPEAKER_SEGMENTATION_MODEL');
  if (!segmentation.model && config.segmentationModel && config.segmentationModel !== 'none')
    log.warn({ diarization: 'sherpa-onnx' }, `diarization: ${segmentation.why}; embeddings of Parla's spans only`);
  const diarizer = new LifecycleDiarizer(embedding.model, segmentation.model, config.threshold, lifecycle, log);
  log.info(
    { diarization: 'sherpa-onnx', embedding: embedding.model.name, segmentation: segmentation.model?.name ?? null },
    `diarization: sherpa-onnx speaker models (${diarizer.name}); built-in clustering when they cannot serve`,
  );
  return diarizer;
}

class LifecycleDiarizer implements SpeakerDiarizer {
  readonly name: string;
  /** The last reason logged: a model that keeps failing is said once, not on every request. */
  private lastWhy: string | null = null;

  constructor(
    embedding: Installed,
    segmentation: Installed | null,
    threshold: number,
    private readonly lifecycle: ModelLifecycle,
    private readonly log: Log,
  ) {
    this.name = `speakers:${embedding.name}${segmentation ? `+${segmentation.name}` : ''}`;
    const setup: SpeakerSetup = {
      embedding: path.join(embedding.dir, embedding.files.model!),
      segmentation: segmentation ? path.join(segmentation.dir, segmentation.files.model!) : null,
      threshold,
    };
    const engineId = `sherpa:${this.name}`;
    lifecycle.register<ModelThread>({
      name: this.name,
      sizeMB: residentEstimateMB(embedding) + (segmentation ? residentEstimateMB(segmentation) : 0),
      load: async () => {
        // Checked again before native code loads them: sherpa-onnx ends the process on a bad file.
        const problem = speakerModelProblem(embedding) ?? (segmentation ? speakerModelProblem(segmentation) : null);
        if (problem) throw new Error(problem);
        let thread: ModelThread | null = null;
        thread = await ModelThread.start(new URL(entry, import.meta.url), { speakerHost: setup }, engineId, 'model', () => {
          if (thread) lifecycle.invalidate(this.name, thread);
        });
        return thread;
      },
      unload: (thread) => thread.stop(),
    });
  }

  async diarize(
    pcm: Int16Array,
    spans: Array<{ start: number; end: number }>,
    references: Int16Array[],
    signal?: AbortSignal,
  ): Promise<SpeakerAnswer | null> {
    try {
      const lease = await this.lifecycle.acquire<ModelThread>(this.name, signal);
      try {
        if (lease.model.inFlight >= MAX_WAITING) throw new Error(`${MAX_WAITING} recordings are already waiting for the speaker models`);
        const copy = pcm.slice();
        const refs = references.map((r) => r.slice());
        const answer = (await lease.model.request({ op: 'diarize', pcm: copy, spans, references: refs }, [
          copy.buffer as ArrayBuffer,
          ...refs.map((r) => r.buffer as ArrayBuffer),
        ])) as SpeakerAnswer;
        this.lastWhy = null;
        return answer;
      } finally {
        lease.release();
      }
    } catch (err) {
      signal?.throwIfAborted();
      const why = (err as Error).message;
      if (why !== this.lastWhy)
        this.log.warn(
          { diarization: 'builtin', model: this.name, reason: why },
          `diarization: ${this.name} cannot serve (${why}); built-in clustering`,
        );
      this.lastWhy = why;
      return null;
    }
  }
}
