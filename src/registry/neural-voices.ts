// Which installed neural voice models serve a TTS product model ahead of its configured chain
// (docs/engines.md "Aura voices on a neural model"). A voice model the manager verified takes over
// the Aura voices of its languages for NEURAL_TTS_MODELS at once, with no catalogue data edited:
// each Aura voice speaks with a speaker of its own gender (src/engines/sherpa/speakers.ts), and a
// voice the model has no speaker for falls through to the configured engines. The operator's
// `parla models bind <tts product model> <model>` puts that model first for any TTS product model.

import type { TtsEngine } from '../engines/engine.js';
import { SherpaTtsEngine } from '../engines/sherpa/sherpa-tts-engine.js';

/**
 * The TTS product models installed neural voices take over without a binding: aura-max only, the
 * premium tier (2 credits a character) whose promise is the best voice this node has. A neural
 * voice costs far more CPU per character than Flite or eSpeak; aura-lite / aura-prime keep their
 * speed and price unless the operator binds a model to them.
 */
export const NEURAL_TTS_MODELS: readonly string[] = ['aura-max'];

/** Per-model neural engines ("sherpa:<model>") in take-over order: Kokoro first (speakers of both genders), then by name. */
export function neuralOrder(engines: readonly TtsEngine[]): TtsEngine[] {
  const rank = (e: SherpaTtsEngine) => (e.models[0]?.kind === 'kokoro' ? 0 : 1);
  return engines
    .filter((e): e is SherpaTtsEngine => e instanceof SherpaTtsEngine && e.id.startsWith('sherpa:') && e.status().available)
    .sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}

/**
 * Product model -> engine ids served ahead of its configured chain: the operator's bound model
 * first, then (for NEURAL_TTS_MODELS) every verified voice model in take-over order.
 */
export function neuralTtsChains(
  engines: readonly TtsEngine[],
  bound: Readonly<Record<string, string>>,
  productModels: readonly string[],
): Record<string, string[]> {
  const neural = neuralOrder(engines).map((e) => e.id);
  const out: Record<string, string[]> = {};
  for (const model of productModels) {
    const ids = [...(bound[model] ? [bound[model]] : []), ...(NEURAL_TTS_MODELS.includes(model) ? neural : [])];
    if (ids.length) out[model] = [...new Set(ids)];
  }
  return out;
}
