// The one model registry: the product's models (TTS and STT), the engine chain configuration binds
// to each (config.product.ttsBindings / sttBindings), which engine serves a model here (the first
// available one of its chain that serves the language), the rule that a model with no such engine
// is LANGUAGE_NOT_SUPPORTED, and each model's price. Services ask it; routes and sockets never
// resolve engines or read the price table themselves. A new engine (built-in or installed) is
// passed in at construction and named in a chain; nothing else changes.

import type { Config } from '../config.js';
import { engineVoiceFor, type EngineVoices, type SttEngine, type TtsEngine } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import { sttCredits, ttsCredits } from '../accounts/pricing.js';
import { baseOf, isRealLanguage, normalizeCode } from '../domain/language-codes.js';

export const TTS_MODELS = ['aura-lite', 'aura-prime', 'aura-max', 'rapid-flash', 'rapid-max'] as const;
export type TtsModel = (typeof TTS_MODELS)[number];

export const CIPHER_MODELS = ['cipher-fast', 'cipher-max'] as const;
export const LUCID_MODELS = ['lucid-mono', 'lucid-multi', 'lucid-agent', 'lucid-lite'] as const;
export const STT_MODELS = [...CIPHER_MODELS, ...LUCID_MODELS] as const;
export type SttModel = (typeof STT_MODELS)[number];
/** The STT endpoint a request came to: any model, or one family's. */
export type SttEndpoint = 'universal' | 'cipher' | 'lucid';

export function engineFamily(model: SttModel): 'cipher' | 'lucid' {
  return (CIPHER_MODELS as readonly string[]).includes(model) ? 'cipher' : 'lucid';
}

/** The STT engine serving a model here and its settings profile. */
export interface SttBindingHere {
  engine: SttEngine;
  profile: string;
}

export interface RegistryEngines {
  tts?: TtsEngine[];
  /** Every STT engine of this node (built-in, and any an operator installed), bound through sttBindings. */
  stt?: SttEngine[];
  /**
   * Product model -> engine id served ahead of its configured chain (the operator's `parla models
   * bind`, e.g. cipher-max -> "sherpa:whisper-base.en").
   */
  sttFirst?: Readonly<Record<string, string>>;
  /**
   * TTS product model -> engine ids served ahead of its configured chain (the operator's bound
   * voice model, and the installed neural voices that take over aura-max: neural-voices.ts).
   */
  ttsFirst?: Readonly<Record<string, readonly string[]>>;
}

export class ModelRegistry {
  private readonly tts = new Map<string, TtsEngine>();
  private readonly stt = new Map<string, SttEngine>();
  private readonly sttFirst: Readonly<Record<string, string>>;
  private readonly ttsFirst: Readonly<Record<string, readonly string[]>>;

  constructor(
    private readonly config: Config,
    engines: RegistryEngines,
  ) {
    for (const e of engines.tts ?? []) this.tts.set(e.id, e);
    for (const e of engines.stt ?? []) this.stt.set(e.id, e);
    this.sttFirst = engines.sttFirst ?? {};
    this.ttsFirst = engines.ttsFirst ?? {};
  }

  // --- Text-to-speech ---

  ttsEngine(id: string): TtsEngine | undefined {
    return this.tts.get(id);
  }

  ttsEngines(): TtsEngine[] {
    return [...this.tts.values()];
  }

  /** Engine ids named in the TTS bindings that no registered engine has (a typo, or an engine not built here). */
  unknownTtsBindings(): string[] {
    const ids = new Set(Object.values(this.config.product.ttsBindings).flat());
    return [...ids].filter((id) => !this.tts.has(id));
  }

  /** The model's engines that are available here, in chain order (neural voices ahead of the configured chain). */
  ttsChain(model: string): TtsEngine[] {
    const configured = this.config.product.ttsBindings[model];
    if (!configured) return [];
    return [...new Set([...(this.ttsFirst[model] ?? []), ...configured])]
      .map((id) => this.tts.get(id))
      .filter((e): e is TtsEngine => e !== undefined && e.status().available);
  }

  /**
   * The first available engine of the model's chain that serves the language, or null. Given a
   * voice's engine voices, only an engine that has a mapping for the voice qualifies (aura-max
   * speaks its female English voices with Festival's HTS voice and its male ones with Flite).
   */
  resolveTtsEngine(model: string, language: string, engineVoices?: EngineVoices): TtsEngine | null {
    return (
      this.ttsChain(model).find(
        (e) => e.languages().includes(language) && (engineVoices === undefined || engineVoiceFor(e, engineVoices, language) !== undefined),
      ) ?? null
    );
  }

  /** As resolveTtsEngine, or LANGUAGE_NOT_SUPPORTED when no engine here speaks the language (in that voice) for the model. */
  requireTtsEngine(model: string, language: string, engineVoices?: EngineVoices): TtsEngine {
    const engine = this.resolveTtsEngine(model, language, engineVoices);
    if (!engine) {
      throw new ApiError('LANGUAGE_NOT_SUPPORTED', {
        message: `${model} cannot speak ${language} in this installation.`,
        details: { provided: language },
      });
    }
    return engine;
  }

  /** Every language the model's chain really serves here (empty for an unknown model). */
  ttsLanguages(model: string): Set<string> {
    const out = new Set<string>();
    for (const e of this.ttsChain(model)) for (const l of e.languages()) out.add(l);
    return out;
  }

  /** Credits for `characters` billable characters of the model. */
  ttsCredits(model: string, characters: number): number {
    return ttsCredits(this.config.product, model, characters);
  }

  // --- Speech-to-text ---

  sttEngines(): SttEngine[] {
    return [...this.stt.values()];
  }

  /** Resolves once every STT engine is loaded and warm (start-up, and tests that time recognition). */
  async whenReady(): Promise<void> {
    await Promise.all(this.sttEngines().map((e) => e.whenReady?.()));
  }

  /** Validates the model for the endpoint: unknown or the other family's model is INVALID_MODEL. */
  checkSttModel(model: string, endpoint: SttEndpoint): SttModel {
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

  /**
   * The first available engine of the model's chain (the operator's bound model, then config
   * sttBindings) and its settings profile, or null.
   */
  sttBinding(model: SttModel): SttBindingHere | null {
    const first = this.sttFirst[model];
    const bound = first ? [{ engine: first, profile: 'default' }] : [];
    for (const b of [...bound, ...(this.config.product.sttBindings[model] ?? [])]) {
      const engine = this.stt.get(b.engine);
      if (engine && engine.status().available) return { engine, profile: b.profile };
    }
    return null;
  }

  /**
   * The product models whose serving engine (sttBinding) translates into English, in list order
   * (a model bound to a multilingual Whisper; docs/compatibility.md, OpenAI translations).
   */
  sttTranslatingModels(): SttModel[] {
    return STT_MODELS.filter((m) => this.sttBinding(m)?.engine.translates === true);
  }

  /** As sttBinding, or LANGUAGE_NOT_SUPPORTED when no engine here serves the model. */
  requireSttBinding(model: SttModel): SttBindingHere {
    const binding = this.sttBinding(model);
    if (!binding)
      throw new ApiError('LANGUAGE_NOT_SUPPORTED', { message: `${model} has no speech engine available in this installation.` });
    return binding;
  }

  sttLanguages(model: SttModel): string[] {
    return this.sttBinding(model)?.engine.languages() ?? [];
  }

  /**
   * The language to recognize and to report. With none given the model detects it among the
   * languages it serves here (with one served language, that one).
   */
  resolveSttLanguage(model: SttModel, requested: string | undefined): string {
    const served = this.sttLanguages(model);
    if (requested === undefined || requested.trim() === '') {
      const detected = served.find((l) => !l.includes('-')) ?? served[0];
      if (!detected)
        throw new ApiError('LANGUAGE_NOT_SUPPORTED', { message: `${model} has no speech engine available in this installation.` });
      return detected;
    }
    const code = normalizeCode(requested);
    if (served.includes(code)) return code;
    if (served.includes(baseOf(code))) return baseOf(code);
    if (!isRealLanguage(code)) {
      throw new ApiError('INVALID_LANGUAGE', {
        message: `"${requested}" is not a language code.`,
        details: { field: 'language', provided: requested, suggestions: served },
      });
    }
    throw new ApiError('LANGUAGE_NOT_SUPPORTED', {
      message: `${model} recognizes ${served.join(', ') || 'no language'} in this installation, not ${requested}.`,
      details: { field: 'language', provided: requested, suggestions: served },
    });
  }

  /** Credits per second of audio for the model (real-time streams prepay by the second). */
  sttRate(model: SttModel): number {
    return this.sttCredits(model, 1);
  }

  /** Credits for `durationSeconds` of audio (per started second, at least one). */
  sttCredits(model: SttModel, durationSeconds: number): number {
    return sttCredits(this.config.product, model, durationSeconds);
  }
}
