// The response bodies of GET /voices (four shapes, decisions #5), GET /languages and GET /models.

import type { Config } from '../config.js';
import { AURA_SET_MODELS, type Catalog, isFlashModel, TTS_MODELS } from './catalog.js';
import type { Gender } from './data.js';
import type { Static } from 'typebox';
import type { LanguageList, ModelList, VoiceListing } from './schemas.js';

const MODEL_INFO: Record<string, { name: string; description: string }> = {
  'aura-lite': {
    name: 'Aura Lite',
    description:
      "Fast, light voices in every language. English: Flite's kal16 diphone voice, 16 kHz (the women speak at a female pitch with that male voice's timbre: no fast engine here has a female English voice). Other languages: eSpeak NG, 22.05 kHz. Expression and break tags.",
  },
  'aura-prime': {
    name: 'Aura Prime',
    description:
      'The default: the clearest voices per language. English: Flite (slt, rms, awb, kal16), 16 kHz. Other languages: eSpeak NG, 22.05 kHz. Expression and break tags.',
  },
  'aura-max': {
    name: 'Aura Max',
    description:
      "Premium rendering of the Aura voices; what the premium buys: in English every woman speaks with Festival's HTS voice (32 kHz synthesis, real content up to 16 kHz against 8 kHz on the other models; her pitch set by the HTS engine itself), heard more clearly than on aura-prime (word errors through Parla's recognizer on 60 sentences: every woman 1.3-7.9 points fewer, 13.9% against 18.4%; docs/benchmarks.md issue 29 item 5), and every file is delivered at 48 kHz. The men in English (Flite) and every other language (eSpeak NG) are aura-prime's voices upsampled to 48 kHz: no content above their engine's band. Loudness -16 LUFS and peaks at most -1 dBFS, as on every model. Expression and break tags.",
  },
  'rapid-flash': {
    name: 'Rapid Flash',
    description:
      'Low-latency voices with fixed names in 17 languages; speed and pitch everywhere. English: Flite, 16 kHz; other languages: eSpeak NG, 22.05 kHz.',
  },
  'rapid-max': {
    name: 'Rapid Max',
    description:
      'The Aura voices without markup, optimized for throughput: rendered as aura-prime renders them (English: Flite; other languages: eSpeak NG).',
  },
};

export function previewUrl(baseUrl: string, voiceKey: string, language: string, model: string): string {
  return `${baseUrl}/api/v1/voices/${encodeURIComponent(voiceKey)}/preview?language=${encodeURIComponent(language)}&model=${encodeURIComponent(model)}`;
}

export function listModels(catalog: Catalog, config: Config): Static<typeof ModelList> {
  return {
    models: TTS_MODELS.map((id) => ({
      id,
      name: MODEL_INFO[id]!.name,
      description: MODEL_INFO[id]!.description,
      languages: catalog.languagesFor(id).length,
      plans: (Object.entries(config.product.plans) as Array<[string, { ttsModels: string[] }]>)
        .filter(([, p]) => p.ttsModels.includes(id))
        .map(([plan]) => plan),
    })),
  };
}

export function listLanguages(catalog: Catalog, model: string | undefined): Static<typeof LanguageList> {
  if (model) {
    const languages = catalog.languagesFor(model).map((l) => ({ code: l.code, name: l.name, region: l.region }));
    return { success: true, languages, total: languages.length, model };
  }
  // Without a model: every language any model serves.
  const seen = new Map<string, { code: string; name: string; region: string }>();
  for (const m of TTS_MODELS)
    for (const l of catalog.languagesFor(m)) if (!seen.has(l.code)) seen.set(l.code, { code: l.code, name: l.name, region: l.region });
  const languages = [...seen.values()];
  return { success: true, languages, total: languages.length, model: 'all' };
}

export function listVoices(
  catalog: Catalog,
  q: { model?: string | undefined; language?: string | undefined; gender?: Gender | undefined },
  baseUrl: string,
): Static<typeof VoiceListing> {
  const keep = (g: Gender) => !q.gender || q.gender === g;
  const { data } = catalog;

  if (q.model && isFlashModel(q.model)) {
    const languages = catalog.languagesFor('rapid-flash').map((l) => l.code);
    const byLanguage: Record<string, Array<{ name: string; gender: Gender }>> = {};
    let total = 0;
    for (const code of languages) {
      const voices = data.flashVoices.filter((v) => v.language === code && keep(v.gender)).map((v) => ({ name: v.name, gender: v.gender }));
      byLanguage[code] = voices;
      total += voices.length;
    }
    return {
      success: true,
      model: 'rapid-flash' as const,
      total_voices: total,
      total_languages: languages.length,
      voices_by_language: byLanguage,
      supported_languages: languages,
    };
  }

  if (q.model) {
    const language = catalog.resolveLanguage(q.model, q.language ?? 'en-US');
    const voices = data.auraVoices
      .filter((v) => keep(v.gender))
      .map((v) => ({ id: v.id, name: catalog.auraName(v, language), gender: v.gender, premium: v.premium }));
    return {
      success: true,
      voices,
      total: voices.length,
      language,
      model: q.model,
      supported_models: [...AURA_SET_MODELS],
      note: `Aura voice names are localized: use the name for the request's language (here ${language}). Premium voices need the pro or enterprise plan.`,
    };
  }

  if (q.language) {
    // Resolved for aura-prime, the default model, which the preview_url uses too.
    const language = catalog.resolveLanguage('aura-prime', q.language);
    const voices = data.auraVoices
      .filter((v) => keep(v.gender))
      .map((v) => ({
        voice_id: v.id,
        name: catalog.auraName(v, language),
        gender: v.gender,
        language,
        preview_url: previewUrl(baseUrl, v.id, language, 'aura-prime'),
        premium: v.premium,
      }));
    return { voices, total: voices.length };
  }

  // Every language some Aura-set model serves here (the voices have a name in each).
  const served = new Set(AURA_SET_MODELS.flatMap((m) => catalog.languagesFor(m).map((l) => l.code)));
  const languages = catalog.data.auraLanguages.map((l) => l.code).filter((c) => served.has(c));
  const voices = data.auraVoices
    .filter((v) => keep(v.gender))
    .map((v) => ({
      id: v.id,
      name: catalog.auraName(v, 'en-US'),
      gender: v.gender,
      age: v.age,
      style: v.style,
      use_case: v.use_case,
      languages,
      sample_url: previewUrl(baseUrl, v.id, 'en-US', 'aura-prime'),
      premium: v.premium,
    }));
  return { voices, total: voices.length };
}
