// The warm cepstral mean, computed once per process and handed to every decoder created later.
//
// A fresh decoder's mean is a generic guess, so decoders used to be warmed by decoding a short
// utterance each (2-3 s of CPU on this machine's kind: most of what a reload after the idle unload
// cost, bench/stt-idle-rss.ts). The mean depends only on the acoustic front end, not on the search,
// so it is computed once on a tiny keyword-spotting decoder (one-word dictionary, no language
// model: about 10 ms to create and a few MB) and set on each new decoder: measured bit-identical
// to the mean a full decoder of either profile reaches on the same utterance. An addon built
// before getCmn()/setCmn() existed falls back to decoding the utterance on every decoder.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MODEL_FILES, type NativeDecoder, type NativeModule } from './binding.js';
import { PsDecoder } from './decoder.js';

export class WarmStart {
  private mean: Promise<Float32Array | null> | null = null;

  constructor(
    private readonly mod: NativeModule,
    private readonly utterance: Int16Array | null,
  ) {}

  /** Gives a freshly initialised decoder the warm mean (nothing when there is no warm-up utterance). */
  async warm(d: PsDecoder): Promise<void> {
    if (!this.utterance) return;
    const mean = await this.computed();
    if (mean && (await d.run((n) => n.setCmn?.(mean) === true))) return;
    await d.decodeContinuous(this.utterance);
    await d.run((n) => n.saveCmn());
  }

  /** Starts computing the mean now (at start: later decoders then wait for nothing but their own creation). */
  computed(): Promise<Float32Array | null> {
    this.mean ??= this.spot().catch(() => null);
    return this.mean;
  }

  private async spot(): Promise<Float32Array | null> {
    const proto = this.mod.Decoder.prototype as Partial<NativeDecoder>;
    if (!this.utterance || typeof proto.getCmn !== 'function' || typeof proto.setCmn !== 'function') return null;
    const dir = mkdtempSync(path.join(tmpdir(), 'parla-cmn-'));
    const dict = path.join(dir, 'one.dict');
    writeFileSync(dict, 'hello HH AH L OW\n');
    const d = new PsDecoder(this.mod, ['-hmm', MODEL_FILES.hmm, '-dict', dict, '-keyphrase', 'hello'], 'warm-start');
    try {
      await d.init();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    try {
      await d.decodeContinuous(this.utterance);
      return await d.run((n) => (n.saveCmn() ? (n.getCmn?.() ?? null) : null));
    } finally {
      await d.run((n) => n.free?.());
    }
  }
}
