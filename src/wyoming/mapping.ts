// What Parla offers, in Wyoming's terms, and back: the `info` answer to `describe` (one ASR program
// with a model per installed STT model, one TTS program with a voice per model and voice), and the
// mapping of a Wyoming voice ({name, language, speaker}) onto Parla's model, voice and language.
// Wyoming voice names are "<model>:<voice>" (e.g. "aura-prime:thalia", "rapid-flash:Amelia"),
// because Parla's voices belong to models and Aura names are localized per language.

import { foldName, isFlashModel, type Catalog } from '../catalog/catalog.js';
import { STT_MODELS, TTS_MODELS, type ModelRegistry, type SttModel } from '../registry/model-registry.js';
import { ApiError } from '../errors.js';
import { WYOMING_VERSION } from './framing.js';

const ATTRIBUTION = { name: 'Parla', url: 'https://github.com/parla' };
/** The TTS model a request gets when its voice names none. */
export const DEFAULT_TTS_MODEL = 'aura-prime';
/** The STT model a `transcribe` gets when it names none. */
export const DEFAULT_STT_MODEL: SttModel = 'cipher-fast';

/** Wyoming writes languages as en_US; Parla as en-US. */
export function parlaLanguage(code: string): string {
  return code.replace(/_/g, '-');
}

export function buildInfo(catalog: Catalog, registry: ModelRegistry): Record<string, unknown> {
  const asrModels = STT_MODELS.filter((m) => registry.sttBinding(m) !== null).map((m) => ({
    name: m,
    attribution: ATTRIBUTION,
    installed: true,
    description: `Parla ${m}`,
    version: null,
    languages: registry.sttLanguages(m),
  }));
  const voices: Array<Record<string, unknown>> = [];
  for (const model of TTS_MODELS) {
    const languages = catalog.languagesFor(model).map((l) => l.code);
    if (languages.length === 0) continue;
    if (isFlashModel(model)) {
      for (const v of catalog.data.flashVoices) {
        if (!languages.includes(v.language)) continue;
        voices.push({
          name: `${model}:${v.name}`,
          attribution: ATTRIBUTION,
          installed: true,
          description: `${v.name} (${v.gender}, ${model})`,
          version: null,
          languages: [v.language],
          speakers: null,
        });
      }
    } else {
      for (const v of catalog.data.auraVoices) {
        const name = catalog.auraName(v, 'en-US');
        voices.push({
          name: `${model}:${name.toLowerCase()}`,
          attribution: ATTRIBUTION,
          installed: true,
          description: `${name} (${v.gender}, ${v.style}${v.premium ? ', premium' : ''}, ${model}); named in each language as GET /api/v1/voices lists`,
          version: null,
          languages,
          speakers: null,
        });
      }
    }
  }
  return {
    asr: asrModels.length
      ? [
          {
            name: 'parla-stt',
            attribution: ATTRIBUTION,
            installed: true,
            description: 'Parla speech-to-text',
            version: WYOMING_VERSION,
            models: asrModels,
            supports_transcript_streaming: true,
          },
        ]
      : [],
    tts: voices.length
      ? [
          {
            name: 'parla-tts',
            attribution: ATTRIBUTION,
            installed: true,
            description: 'Parla text-to-speech',
            version: WYOMING_VERSION,
            voices,
            supports_synthesize_streaming: true,
          },
        ]
      : [],
    handle: [],
    intent: [],
    wake: [],
  };
}

export interface ParlaVoice {
  model: string;
  voice: string;
  language: string | undefined;
}

function str(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length > 200)
    throw new ApiError('INVALID_PARAMETER', { message: `voice.${field} must be a short string.`, details: { field: `voice.${field}` } });
  return v.trim() === '' ? undefined : v.trim();
}

/** The Parla model, voice and language a Wyoming `voice` object asks for (unknown names fail later, in the service, with its suggestions). */
export function mapVoice(catalog: Catalog, voice: unknown): ParlaVoice {
  const v = typeof voice === 'object' && voice !== null && !Array.isArray(voice) ? (voice as Record<string, unknown>) : {};
  if (voice !== undefined && voice !== null && v !== voice)
    throw new ApiError('INVALID_PARAMETER', { message: 'voice must be an object.', details: { field: 'voice' } });
  const rawName = str(v.name, 'name');
  const rawLanguage = str(v.language, 'language');
  const language = rawLanguage === undefined ? undefined : parlaLanguage(rawLanguage);
  let model = DEFAULT_TTS_MODEL;
  let name = rawName;
  const colon = rawName?.indexOf(':') ?? -1;
  if (rawName !== undefined && colon > 0) {
    const prefix = rawName.slice(0, colon);
    if (!(TTS_MODELS as readonly string[]).includes(prefix)) {
      throw new ApiError('INVALID_MODEL', {
        message: `Wyoming voice names are <model>:<voice>; ${prefix} is not a Parla TTS model.`,
        details: { field: 'voice.name', provided: rawName, suggestions: [...TTS_MODELS] },
      });
    }
    model = prefix;
    name = rawName.slice(colon + 1);
  }
  if (isFlashModel(model)) {
    return { model, voice: name ?? catalog.data.flashVoices.find((f) => f.language === (language ?? 'en-US'))?.name ?? 'Amelia', language };
  }
  // Aura voices are listed under their en-US name; the service wants the name in the request's language.
  const resolved = language === undefined ? 'en-US' : catalog.resolveLanguage(model, language);
  const wanted = name === undefined ? null : foldName(name);
  const aura =
    wanted === null
      ? catalog.data.auraVoices.find((a) => !a.premium)
      : catalog.data.auraVoices.find((a) => foldName(catalog.auraName(a, 'en-US')) === wanted || a.id === name);
  return { model, voice: aura ? catalog.auraName(aura, resolved) : name!, language };
}

/** The STT model a `transcribe` names (an ASR model's name from `info`), or the default. */
export function mapSttModel(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') return DEFAULT_STT_MODEL;
  return name.trim();
}
