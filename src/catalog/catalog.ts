// The catalogue's rules: which languages each model serves here (counted from its engines), how a
// requested language code resolves, and how a voice name resolves for a model and language
// (decisions #1, #3, #4, #32). Listings are built in listings.ts.

import type { Plan } from '../domain/accounts.js';
import type { Config } from '../config.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import { ApiError } from '../errors.js';
import type { VoiceRequest, VoiceSelection } from './voice-selection.js';
import { loadCatalogData, type AuraLanguage, type AuraVoice, type CatalogData, type FlashVoice, type LanguageInfo } from './data.js';
import { neuralVoiceKey } from '../engines/sherpa/speakers.js';
import { baseOf, isRealLanguage, normalizeCode, PREFERRED_VARIANT } from '../domain/language-codes.js';

// The product's TTS models are the registry's list; re-exported for the catalogue's readers.
export { TTS_MODELS, type TtsModel as TtsModelId } from '../registry/model-registry.js';
export const AURA_SET_MODELS = ['aura-lite', 'aura-prime', 'aura-max', 'rapid-max'] as const;

/** How voice names are compared: ignoring case and accents, so "vaino" finds "Väinö". */
export function foldName(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

export function isFlashModel(model: string): boolean {
  return model === 'rapid-flash';
}

/** The voice and language catalogue; the TTS service reaches it through TtsCatalogPort (src/tts/ports.ts). */
export class Catalog {
  readonly data: CatalogData;
  private readonly auraByCode: Map<string, AuraLanguage>;
  private readonly flashByCode: Map<string, LanguageInfo>;
  /** Folded Aura name -> the voices and languages that carry it (for "that name is from another language"). */
  private readonly auraNameIndex = new Map<string, Array<{ voice: AuraVoice; language: string }>>();
  private readonly servedByModel = new Map<string, { list: readonly LanguageInfo[]; codes: ReadonlySet<string> }>();

  constructor(
    private readonly config: Config,
    private readonly registry: ModelRegistry,
    data: CatalogData = loadCatalogData(),
  ) {
    this.data = data;
    this.auraByCode = new Map(data.auraLanguages.map((l) => [l.code, l]));
    this.flashByCode = new Map(data.flashLanguages.map((l) => [l.code, l]));
    for (const lang of data.auraLanguages) {
      for (const voice of data.auraVoices) {
        const key = foldName(this.auraName(voice, lang.code));
        const list = this.auraNameIndex.get(key) ?? [];
        list.push({ voice, language: lang.code });
        this.auraNameIndex.set(key, list);
      }
    }
  }

  /** eSpeak voice per catalogue code, for the eSpeak engine (Aura and Flash codes). */
  static espeakLanguageMap(data: CatalogData = loadCatalogData()): Map<string, string> {
    const m = new Map<string, string>();
    for (const l of [...data.auraLanguages, ...data.flashLanguages]) m.set(l.code, l.espeak);
    return m;
  }

  /** The model's language universe: Flash codes for rapid-flash, Aura codes otherwise. */
  private universe(model: string): Map<string, LanguageInfo> {
    return isFlashModel(model) ? this.flashByCode : this.auraByCode;
  }

  /**
   * Languages the model really serves in this installation, in catalogue order. Engines settle
   * what they can serve when they are constructed, so this is computed once per model: listings
   * and every synthesis request ask for it.
   */
  languagesFor(model: string): readonly LanguageInfo[] {
    return this.served(model).list;
  }

  private served(model: string): { list: readonly LanguageInfo[]; codes: ReadonlySet<string> } {
    let s = this.servedByModel.get(model);
    if (!s) {
      const served = this.registry.ttsLanguages(model);
      const list = [...this.universe(model).values()].filter((l) => served.has(l.code));
      s = { list, codes: new Set(list.map((l) => l.code)) };
      this.servedByModel.set(model, s);
    }
    return s;
  }

  /** Maps a requested code to the model's canonical code, or throws INVALID_LANGUAGE / LANGUAGE_NOT_SUPPORTED. */
  resolveLanguage(model: string, requested: string): string {
    const code = normalizeCode(requested);
    const served = this.served(model).codes;
    const pick = (c: string | undefined) => (c !== undefined && served.has(c) ? c : null);
    let found = pick(code) ?? (code.includes('-') ? pick(baseOf(code)) : null);
    if (!found && !code.includes('-')) {
      const variants = [...served].filter((c) => baseOf(c) === code);
      found = variants.length === 1 ? variants[0]! : (pick(PREFERRED_VARIANT[code]) ?? null);
    }
    if (found) return found;
    const known = isRealLanguage(code) || this.auraByCode.has(code) || this.flashByCode.has(code);
    if (!known) {
      throw new ApiError('INVALID_LANGUAGE', {
        message: `"${requested}" is not a supported language code.`,
        details: { field: 'language', provided: requested, suggestions: [...served].slice(0, 10) },
      });
    }
    throw new ApiError('LANGUAGE_NOT_SUPPORTED', {
      message: `${model} does not serve ${requested} in this installation.`,
      details: {
        field: 'language',
        provided: requested,
        suggestions: [...new Set([...served].filter((c) => baseOf(c) === baseOf(code)).concat([...served].slice(0, 5)))].slice(0, 8),
      },
    });
  }

  auraName(voice: AuraVoice, code: string): string {
    const lang = this.auraByCode.get(code);
    const set = this.data.names[lang?.nameSet ?? 'en'] ?? this.data.names.en!;
    return set[voice.gender][voice.slot]!;
  }

  /** Aura voices whose name in some Aura language equals `name` (ignoring case and accents). */
  private auraMatches(name: string): Array<{ voice: AuraVoice; language: string }> {
    return this.auraNameIndex.get(foldName(name)) ?? [];
  }

  private flashVoice(name: string): FlashVoice | undefined {
    const n = foldName(name);
    return this.data.flashVoices.find((v) => foldName(v.name) === n);
  }

  private premiumAllowed(plan: Plan): boolean {
    return this.config.product.plans[plan].premiumVoices;
  }

  selectVoice(req: VoiceRequest & { languageGiven?: boolean }): { language: string; voice: VoiceSelection } {
    return isFlashModel(req.model) ? this.selectFlash(req) : this.selectAura(req);
  }

  private selectFlash(req: VoiceRequest & { languageGiven?: boolean }): { language: string; voice: VoiceSelection } {
    const voice = this.flashVoice(req.voice);
    if (!voice) {
      const aura = this.auraMatches(req.voice);
      const language = req.languageGiven === false ? 'en-US' : this.resolveLanguage(req.model, req.language);
      const suggestions = this.data.flashVoices.filter((v) => v.language === language).map((v) => v.name);
      throw new ApiError('INVALID_VOICE', {
        message: aura.length
          ? `"${req.voice}" is an Aura voice; rapid-flash uses the Flash voices (GET /api/v1/voices?model=rapid-flash).`
          : `No Flash voice is named "${req.voice}".`,
        details: { field: 'voice', provided: req.voice, suggestions },
      });
    }
    // A Flash voice belongs to one language; without a language in the request, it speaks its own.
    const language = req.languageGiven === false ? voice.language : this.resolveLanguage(req.model, req.language);
    if (language !== voice.language) {
      throw new ApiError('INVALID_VOICE', {
        message: `The Flash voice ${voice.name} speaks ${voice.language}, not ${language}.`,
        details: {
          field: 'voice',
          provided: req.voice,
          suggestions: this.data.flashVoices.filter((v) => v.language === language).map((v) => v.name),
        },
      });
    }
    return {
      language,
      voice: {
        id: `flash-${voice.name.toLowerCase()}`,
        name: voice.name,
        engineVoices: voice.engines,
        basePitch: voice.basePitch,
        baseRate: voice.baseRate,
      },
    };
  }

  private selectAura(req: VoiceRequest): { language: string; voice: VoiceSelection } {
    const language = this.resolveLanguage(req.model, req.language);
    const wanted = foldName(req.voice);
    const voice = this.data.auraVoices.find((v) => foldName(this.auraName(v, language)) === wanted);
    if (!voice) {
      const flash = this.flashVoice(req.voice);
      if (flash) {
        throw new ApiError('INVALID_VOICE', {
          message: `"${flash.name}" is a Flash voice, usable with rapid-flash only; ${req.model} uses the Aura voices.`,
          details: {
            field: 'voice',
            provided: req.voice,
            suggestions: this.data.auraVoices.slice(0, 5).map((v) => this.auraName(v, language)),
          },
        });
      }
      const elsewhere = this.auraMatches(req.voice);
      if (elsewhere.length) {
        const suggestions = [...new Set(elsewhere.map((m) => this.auraName(m.voice, language)))];
        const from = [...new Set(elsewhere.map((m) => m.language))].slice(0, 3).join(', ');
        throw new ApiError('INVALID_VOICE', {
          message: `"${req.voice}" is the voice's name in ${from}; in ${language} it is called ${suggestions.join(' or ')}.`,
          details: { field: 'voice', provided: req.voice, suggestions },
        });
      }
      throw new ApiError('INVALID_VOICE', {
        message: `No Aura voice is named "${req.voice}" in ${language}.`,
        details: {
          field: 'voice',
          provided: req.voice,
          suggestions: this.data.auraVoices.slice(0, 5).map((v) => this.auraName(v, language)),
        },
      });
    }
    if (voice.premium && !this.premiumAllowed(req.plan)) {
      throw new ApiError('VOICE_ACCESS_DENIED', {
        message: `${this.auraName(voice, language)} is a premium voice, included in the pro and enterprise plans.`,
        details: {
          provided: req.voice,
          suggestions: this.data.auraVoices
            .filter((v) => !v.premium)
            .slice(0, 5)
            .map((v) => this.auraName(v, language)),
        },
      });
    }
    return {
      language,
      voice: {
        id: voice.id,
        name: this.auraName(voice, language),
        engineVoices: auraEngineVoices(voice),
        basePitch: voice.basePitch,
        baseRate: voice.baseRate,
      },
    };
  }
}

/**
 * An Aura voice's engine voice per engine mapping key (engineVoiceFor, src/engines/engine.ts).
 * "neural" is the voice's gender and slot, from which a neural model picks a speaker of the same
 * gender (src/engines/sherpa/speakers.ts).
 */
export function auraEngineVoices(voice: AuraVoice): Record<string, string> {
  return {
    espeak: voice.espeak,
    flite: voice.flite,
    'flite-lite': voice.fliteLite,
    ...(voice.festival ? { festival: voice.festival } : {}),
    neural: neuralVoiceKey(voice.gender, voice.slot),
  };
}
