// What serves each product model right now, for GET /health and GET /api/v1/stt/realtime/info
// (docs/interface.md): the engine a request would get (the first available one of the model's
// chain, e.g. "sherpa:whisper-base.en" or "pocketsphinx") and whether the model behind it is
// loaded (model-lifecycle.ts). Cheap (a walk over a few dozen entries) and public-safe: engine ids
// and installed model names, never paths.

import type { ModelLifecycle } from '../engines/model-lifecycle.js';
import { STT_MODELS, type ModelRegistry, type SttModel } from './model-registry.js';

export interface SttServing {
  model: SttModel;
  /** Engine id serving it now, or null when none is available here. */
  engine: string | null;
  /** The engine's model is loaded now (engines that hold theirs for good: true while available). */
  loaded: boolean;
}

export interface TtsServing {
  model: string;
  /** Available engines in the order they are tried (a voice or language takes the first that has it). */
  engines: string[];
  /** Neural voice models of those engines loaded now (lifecycle names, "tts:<model>"). */
  loaded: string[];
}

function loadedNames(lifecycle: ModelLifecycle | undefined): Set<string> {
  return new Set((lifecycle?.resident() ?? []).filter((m) => m.state === 'loaded').map((m) => m.name));
}

export function sttServing(registry: ModelRegistry, lifecycle: ModelLifecycle | undefined, loaded = loadedNames(lifecycle)): SttServing[] {
  return STT_MODELS.map((model) => {
    const b = registry.sttBinding(model);
    if (!b) return { model, engine: null, loaded: false };
    const name = b.engine.lifecycleModel?.(b.profile);
    return { model, engine: b.engine.id, loaded: name === undefined ? true : loaded.has(name) };
  });
}

export function ttsServing(
  registry: ModelRegistry,
  lifecycle: ModelLifecycle | undefined,
  productModels: readonly string[],
  loaded = loadedNames(lifecycle),
): TtsServing[] {
  return productModels.map((model) => {
    const chain = registry.ttsChain(model);
    return {
      model,
      engines: chain.map((e) => e.id),
      loaded: [...new Set(chain.flatMap((e) => e.lifecycleModels?.() ?? []))].filter((n) => loaded.has(n)),
    };
  });
}

/** Both, for /health. */
export function modelsServing(
  registry: ModelRegistry,
  lifecycle: ModelLifecycle | undefined,
  ttsModels: readonly string[],
): { stt: SttServing[]; tts: TtsServing[] } {
  const loaded = loadedNames(lifecycle);
  return { stt: sttServing(registry, lifecycle, loaded), tts: ttsServing(registry, lifecycle, ttsModels, loaded) };
}
