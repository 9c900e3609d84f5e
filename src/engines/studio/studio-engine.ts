// StudioEngine: another engine's speech (through that engine's output stage: the voice's fixed gain
// to -16 LUFS and the true-peak limiter) put through the finishing chain (finishing.ts: upsampled
// to 48 kHz, limited again), in the worker pool. It is
// what the premium model's chain names ("studio-festival", "studio-flite", "studio-espeak"): the
// engine underneath chooses the words and the voice, this sets how the file is mastered. A
// catalogue voice needs no entry of its own: it is read with the inner engine's mapping.

import type { WorkerPool } from '../../workers/pool.js';
import type { SynthesisRequest, SynthesisResult, TtsEngine } from '../engine.js';

export class StudioEngine implements TtsEngine {
  readonly id: string;
  readonly voiceMapping: string;
  readonly nativeStyles: TtsEngine['nativeStyles'];
  readonly chunkChars: number | undefined;
  readonly wordEvents: boolean | undefined;

  constructor(
    private readonly inner: TtsEngine,
    private readonly pool: WorkerPool,
  ) {
    this.id = `studio-${inner.id}`;
    this.voiceMapping = inner.voiceMapping ?? inner.id;
    this.nativeStyles = inner.nativeStyles;
    this.chunkChars = inner.chunkChars;
    // The inner engine's word events come through (their times are in seconds); without them the
    // words are aligned to this engine's audio like any other's.
    this.wordEvents = inner.wordEvents;
  }

  status(): { available: boolean; reason?: string } {
    return this.inner.status();
  }

  languages(): string[] {
    return this.inner.languages();
  }

  async synthesize(req: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const raw = await this.inner.synthesize(req, signal);
    if (raw.samples.length === 0) return raw;
    const done = await this.pool.run('audio.studio', { samples: raw.samples, sampleRate: raw.sampleRate }, { move: [raw.samples] });
    signal?.throwIfAborted();
    // Word times are in seconds, so they hold at the new rate.
    return { samples: done.samples, sampleRate: done.sampleRate, ...(raw.words ? { words: raw.words } : {}) };
  }
}
