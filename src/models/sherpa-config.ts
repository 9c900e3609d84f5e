// The sherpa-onnx-node configuration for each model format (the package ships no TypeScript
// declarations: the few shapes used are declared here). Shared by the loading check and, later, the
// engines that serve installed models, so both load a folder the same way.

import { createRequire } from 'node:module';
import path from 'node:path';
import type { ProbedModel } from './probe.js';

export interface Wave {
  samples: Float32Array;
  sampleRate: number;
}

export interface SherpaStream {
  acceptWaveform(wave: Wave): void;
  inputFinished(): void;
}

export interface OfflineRecognizer {
  createStream(): SherpaStream;
  decode(stream: SherpaStream): void;
  getResult(stream: SherpaStream): { text: string; lang?: string; tokens: string[]; timestamps?: number[] };
}

export interface OnlineRecognizer extends OfflineRecognizer {
  isReady(stream: SherpaStream): boolean;
}

export interface OfflineTts {
  numSpeakers: number;
  sampleRate: number;
  generate(req: { text: string; sid: number; speed: number }): Wave;
}

export interface SpeakerEmbeddingExtractor {
  dim: number;
  createStream(): SherpaStream;
  isReady(stream: SherpaStream): boolean;
  compute(stream: SherpaStream, enableExternalBuffer?: boolean): Float32Array;
}

export interface OfflineSpeakerDiarization {
  sampleRate: number;
  process(samples: Float32Array): Array<{ start: number; end: number; speaker: number }>;
}

export interface SherpaModule {
  version?: string;
  OfflineRecognizer: new (config: unknown) => OfflineRecognizer;
  OnlineRecognizer: new (config: unknown) => OnlineRecognizer;
  OfflineTts: new (config: unknown) => OfflineTts;
  SpeakerEmbeddingExtractor: new (config: unknown) => SpeakerEmbeddingExtractor;
  OfflineSpeakerDiarization: new (config: unknown) => OfflineSpeakerDiarization;
}

/** sherpa-onnx's SpeakerEmbeddingExtractorConfig for one embedding model file. */
export function speakerEmbeddingConfig(file: string, threads = 1): Record<string, unknown> {
  return { model: file, numThreads: threads, provider: 'cpu', debug: 0 };
}

/**
 * sherpa-onnx's OfflineSpeakerDiarizationConfig: pyannote segmentation, then embeddings of each
 * speaker's stretches clustered by cosine distance (`threshold`; a larger one gives fewer speakers).
 * minDurationOn/Off as sherpa-onnx's own example (nodejs-addon-examples/test_offline_speaker_diarization.js).
 */
export function speakerDiarizationConfig(segmentation: string, embedding: string, threshold: number, threads = 1): Record<string, unknown> {
  return {
    segmentation: { pyannote: { model: segmentation }, numThreads: threads, provider: 'cpu', debug: 0 },
    embedding: speakerEmbeddingConfig(embedding, threads),
    clustering: { numClusters: -1, threshold },
    minDurationOn: 0.2,
    minDurationOff: 0.5,
  };
}

export function loadSherpa(): SherpaModule {
  return createRequire(import.meta.url)('sherpa-onnx-node') as SherpaModule;
}

export type SherpaLoad =
  | { api: 'OfflineRecognizer'; config: Record<string, unknown> }
  | { api: 'OnlineRecognizer'; config: Record<string, unknown> }
  | { api: 'OfflineTts'; config: Record<string, unknown> };

const FEAT = { sampleRate: 16000, featureDim: 80 };

export function sherpaLoad(dir: string, model: Pick<ProbedModel, 'format' | 'files'>, threads = 1): SherpaLoad {
  const f = (name: string | undefined) => (name === undefined ? '' : path.join(dir, name));
  const { files } = model;
  const common = { tokens: f(files.tokens), numThreads: threads, provider: 'cpu', debug: 0 };
  switch (model.format) {
    case 'whisper':
      return {
        api: 'OfflineRecognizer',
        config: {
          featConfig: FEAT,
          modelConfig: {
            whisper: { encoder: f(files.encoder), decoder: f(files.decoder), language: '', task: 'transcribe', tailPaddings: -1 },
            ...common,
          },
          decodingMethod: 'greedy_search',
        },
      };
    case 'nemo-ctc':
      return {
        api: 'OfflineRecognizer',
        config: { featConfig: FEAT, modelConfig: { nemoCtc: { model: f(files.model) }, ...common }, decodingMethod: 'greedy_search' },
      };
    case 'zipformer-transducer':
      return {
        api: 'OnlineRecognizer',
        config: {
          featConfig: FEAT,
          modelConfig: { transducer: { encoder: f(files.encoder), decoder: f(files.decoder), joiner: f(files.joiner) }, ...common },
          decodingMethod: 'greedy_search',
          enableEndpoint: true,
        },
      };
    case 'zipformer2-ctc':
      return {
        api: 'OnlineRecognizer',
        config: {
          featConfig: FEAT,
          modelConfig: { zipformer2Ctc: { model: f(files.model) }, ...common },
          decodingMethod: 'greedy_search',
          enableEndpoint: true,
        },
      };
    case 'piper':
      return {
        api: 'OfflineTts',
        config: {
          model: {
            vits: { model: f(files.model), tokens: f(files.tokens), dataDir: f(files.dataDir) },
            numThreads: threads,
            provider: 'cpu',
            debug: 0,
          },
          maxNumSentences: 1,
        },
      };
    case 'vits':
      return {
        api: 'OfflineTts',
        config: {
          model: {
            vits: { model: f(files.model), tokens: f(files.tokens), lexicon: f(files.lexicon) },
            numThreads: threads,
            provider: 'cpu',
            debug: 0,
          },
          maxNumSentences: 1,
        },
      };
    case 'kokoro': {
      const lexicon = files.lexicon
        ? files.lexicon
            .split(',')
            .map((l) => f(l))
            .join(',')
        : undefined;
      return {
        api: 'OfflineTts',
        config: {
          model: {
            kokoro: {
              model: f(files.model),
              voices: f(files.voices),
              tokens: f(files.tokens),
              dataDir: f(files.dataDir),
              ...(lexicon ? { lexicon } : {}),
            },
            numThreads: threads,
            provider: 'cpu',
            debug: 0,
          },
          maxNumSentences: 1,
        },
      };
    }
    case 'smart-turn':
      throw new Error('a Smart Turn model is run by onnxruntime (src/models/smart-turn.ts), not sherpa-onnx');
    case 'speaker-segmentation':
    case 'speaker-embedding':
      throw new Error('a speaker model is loaded by src/models/speaker-check.ts and src/engines/sherpa/speaker-host.ts');
  }
}
