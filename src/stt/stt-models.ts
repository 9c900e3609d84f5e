// Speech-to-text product models: their engine bindings (config sttBindings), endpoints, languages
// and language resolution (decisions #16, #19).

import type { Config } from '../config.js';
import type { SttEngine } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import { baseOf, isRealLanguage, normalizeCode } from '../catalog/language-codes.js';

export const CIPHER_MODELS = ['cipher-fast', 'cipher-max'] as const;
export const LUCID_MODELS = ['lucid-mono', 'lucid-multi', 'lucid-agent', 'lucid-lite'] as const;
export const STT_MODELS = [...CIPHER_MODELS, ...LUCID_MODELS] as const;
export type SttModel = (typeof STT_MODELS)[number];
export type SttEndpoint = 'universal' | 'cipher' | 'lucid';

export function engineFamily(model: SttModel): 'cipher' | 'lucid' {
  return (CIPHER_MODELS as readonly string[]).includes(model) ? 'cipher' : 'lucid';
}

export class SttModels {
  private readonly engines = new Map<string, SttEngine>();

  /**
   * `firstEngines`: product model -> engine id served ahead of its configured chain (the
   * operator's `parla models bind`, e.g. cipher-max -> "sherpa:whisper-base.en").
   */
  constructor(
    private readonly config: Config,
    engines: SttEngine[],
    private readonly firstEngines: Record<string, string> = {},
  ) {
    for (const e of engines) this.engines.set(e.id, e);
  }

  allEngines(): SttEngine[] {
    return [...this.engines.values()];
  }

  /** Validates the model for the endpoint: unknown or the other engine's model is INVALID_MODEL. */
  checkModel(model: string, endpoint: SttEndpoint): SttModel {
    if (!(STT_MODELS as readonly string[]).includes(model)) {
      const allowed = endpoint === 'cipher' ? CIPHER_MODELS : endpoint === 'lucid' ? LUCID_MODELS : STT_MODELS;
      throw new ApiError('INVALID_MODEL', {
        message: `Unknown speech-to-text model "${model}"; use one of ${allowed.join(', ')}.`,
        details: { field: 'model', provided: model, suggestions: [...allowed] },
      });
    }
    const m = model as SttModel;
    const family = engineFamily(m);
    if (endpoint !== 'universal' && family !== endpoint) {
      throw new ApiError('INVALID_MODEL', {
        message: `${m} is a ${family === 'cipher' ? 'Cipher' : 'Lucid'} model: send it to /api/v1/stt/${family}/transcribe (or /api/v1/stt/transcribe).`,
        details: { field: 'model', provided: m, suggestions: endpoint === 'cipher' ? [...CIPHER_MODELS] : [...LUCID_MODELS] },
      });
    }
    return m;
  }

  /** The engine and settings profile serving the model here, with the languages it serves. */
  binding(model: SttModel): { engine: SttEngine; profile: string } | null {
    const first = this.firstEngines[model];
    const bound = first ? [{ engine: first, profile: 'default' }] : [];
    for (const b of [...bound, ...(this.config.product.sttBindings[model] ?? [])]) {
      const engine = this.engines.get(b.engine);
      if (engine && engine.status().available) return { engine, profile: b.profile };
    }
    return null;
  }

  languagesFor(model: SttModel): string[] {
    return this.binding(model)?.engine.languages() ?? [];
  }

  /**
   * The language to recognize and to report. With none given the model detects it among the
   * languages it serves here (with one served language, that one).
   */
  resolveLanguage(model: SttModel, requested: string | undefined): string {
    const served = this.languagesFor(model);
    if (requested === undefined || requested.trim() === '') {
      const detected = served.find((l) => !l.includes('-')) ?? served[0];
      if (!detected) throw new ApiError('LANGUAGE_NOT_SUPPORTED', { message: `${model} has no speech engine available in this installation.` });
      return detected;
    }
    const code = normalizeCode(requested);
    if (served.includes(code)) return code;
    if (served.includes(baseOf(code))) return baseOf(code);
    if (!isRealLanguage(code)) {
      throw new ApiError('INVALID_LANGUAGE', { message: `"${requested}" is not a language code.`, details: { field: 'language', provided: requested, suggestions: served } });
    }
    throw new ApiError('LANGUAGE_NOT_SUPPORTED', {
      message: `${model} recognizes ${served.join(', ') || 'no language'} in this installation, not ${requested}.`,
      details: { field: 'language', provided: requested, suggestions: served },
    });
  }
}
