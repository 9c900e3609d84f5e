// The PocketSphinx engine as the service runs it, from the typed configuration.

import type { Config } from '../../config.js';
import { PocketSphinxEngine } from './pocketsphinx-engine.js';
import { warmupUtterance } from './warmup.js';

/**
 * `sttDecoders` warm decoders per settings profile (created on first use unless `sttPreload`; decision #69),
 * plus up to as many keyword-boost decoders per profile, created as boosted work first needs them.
 */
export function createPocketSphinxEngine(config: Pick<Config, 'sttDecoders' | 'sttPreload' | 'sttDecoderWaitSeconds'>): PocketSphinxEngine {
  return new PocketSphinxEngine({
    decodersPerProfile: config.sttDecoders,
    boostDecodersPerProfile: config.sttDecoders,
    warmup: warmupUtterance(),
    preload: config.sttPreload,
    decoderWaitMs: config.sttDecoderWaitSeconds * 1000,
  });
}
