// TypeBox schemas of the catalogue endpoints' queries and responses (the OpenAPI document is
// generated from them). The four /voices shapes follow decisions #5; docs/catalog.md explains them.

import { Type, type Static } from 'typebox';
import { TTS_MODELS } from './catalog.js';

export const ModelParam = Type.Union(
  TTS_MODELS.map((m) => Type.Literal(m)),
  { description: 'One of the five TTS models.' },
);
const LanguageParam = Type.String({
  minLength: 1,
  maxLength: 35,
  description: 'A language code such as de, de-DE or en_us; a short code matches the one regional code the model serves (docs/catalog.md).',
});
const GenderParam = Type.Union([Type.Literal('male'), Type.Literal('female')], { description: 'Only voices of this gender.' });
const Gender = Type.Union([Type.Literal('male'), Type.Literal('female')]);
const Premium = Type.Boolean({ description: 'Premium voice: pro and enterprise plans only (403 VOICE_ACCESS_DENIED on free and basic).' });

export const VoicesQuery = Type.Object({
  model: Type.Optional(ModelParam),
  language: Type.Optional(LanguageParam),
  gender: Type.Optional(GenderParam),
});
export type VoicesQuery = Static<typeof VoicesQuery>;

export const LanguagesQuery = Type.Object({ model: Type.Optional(ModelParam) });
export type LanguagesQuery = Static<typeof LanguagesQuery>;

export const PreviewParams = Type.Object({
  voice: Type.String({ minLength: 1, maxLength: 64, description: 'An Aura voice id (aura-01 ... aura-30) or a Flash voice name.' }),
});
export const PreviewQuery = Type.Object({
  model: Type.Optional(ModelParam),
  language: Type.Optional(LanguageParam),
});
export type PreviewQuery = Static<typeof PreviewQuery>;

export const LanguageList = Type.Object({
  success: Type.Boolean(),
  languages: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), region: Type.String() })),
  total: Type.Integer(),
  model: Type.String({ description: 'The model asked for, or "all".' }),
});

export const ModelList = Type.Object({
  models: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      languages: Type.Integer({ description: 'Languages this model really serves in this installation (counted from its engines).' }),
      plans: Type.Array(Type.String(), { description: 'Plans that may use the model.' }),
    }),
  ),
});

/** model=rapid-flash: Flash voices grouped by their language. */
export const FlashVoiceListing = Type.Object(
  {
    success: Type.Boolean(),
    model: Type.Literal('rapid-flash'),
    total_voices: Type.Integer(),
    total_languages: Type.Integer(),
    voices_by_language: Type.Record(Type.String(), Type.Array(Type.Object({ name: Type.String(), gender: Gender }))),
    supported_languages: Type.Array(Type.String()),
  },
  { title: 'Flash voices' },
);

/** model = an Aura model or rapid-max: the Aura voices with names localized to the language. */
export const AuraVoiceListing = Type.Object(
  {
    success: Type.Boolean(),
    voices: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), gender: Gender, premium: Premium })),
    total: Type.Integer(),
    language: Type.String(),
    model: Type.String(),
    supported_models: Type.Array(Type.String()),
    note: Type.String(),
  },
  { title: 'Aura voices for a model' },
);

/** No model, a language: the basic list of the Aura voices in that language. */
export const BasicVoiceListing = Type.Object(
  {
    voices: Type.Array(
      Type.Object({
        voice_id: Type.String(),
        name: Type.String(),
        gender: Gender,
        language: Type.String(),
        preview_url: Type.String({ description: 'A short WAV sample of this voice in this language (GET, no key needed).' }),
        premium: Premium,
      }),
    ),
    total: Type.Integer(),
  },
  { title: 'Voices in a language' },
);

/** Neither model nor language: one record per Aura base voice, with its en-US name. */
export const ExtendedVoiceListing = Type.Object(
  {
    voices: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        gender: Gender,
        age: Type.Union([Type.Literal('young'), Type.Literal('middle'), Type.Literal('senior')]),
        style: Type.Union([Type.Literal('narrative'), Type.Literal('conversational'), Type.Literal('news')]),
        use_case: Type.String(),
        languages: Type.Array(Type.String(), { description: 'Every language code the voice speaks (it has a name in each).' }),
        sample_url: Type.String({ description: 'A short WAV sample of this voice in en-US (GET, no key needed).' }),
        premium: Premium,
      }),
    ),
    total: Type.Integer(),
  },
  { title: 'Aura base voices' },
);

// Serialization tries the shapes in this order; each differs from the earlier ones in a required field.
export const VoiceListing = Type.Union([FlashVoiceListing, AuraVoiceListing, BasicVoiceListing, ExtendedVoiceListing], {
  description: 'The shape depends on the query: model=rapid-flash, another model, only a language, or neither (decisions #5).',
});
