// GET /api/v1/voices, /api/v1/languages (and the doubled alias /api/api/v1/languages, decisions #6),
// /api/v1/models, and the voice preview behind preview_url / sample_url.

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import type { Catalog } from '../../catalog/catalog.js';
import { TTS_MODELS } from '../../catalog/catalog.js';
import { listLanguages, listModels, listVoices } from '../../catalog/listings.js';
import type { TtsEngineRegistry } from '../../engines/registry.js';
import { errorResponses } from '../../http/schemas.js';
import { ApiError } from '../../errors.js';
import { renderItems } from '../../tts/render.js';
import { finishDocument } from '../../tts/finish.js';

const ModelParam = Type.Union(TTS_MODELS.map((m) => Type.Literal(m)), { description: 'One of the five TTS models.' });
const VoicesQuery = Type.Object({
  model: Type.Optional(ModelParam),
  language: Type.Optional(Type.String({ minLength: 2, maxLength: 16 })),
  gender: Type.Optional(Type.Union([Type.Literal('male'), Type.Literal('female')])),
});
const LanguagesQuery = Type.Object({ model: Type.Optional(ModelParam) });
const PreviewQuery = Type.Object({ model: Type.Optional(ModelParam), language: Type.Optional(Type.String({ minLength: 2, maxLength: 16 })) });

const LanguageSchema = Type.Object({ code: Type.String(), name: Type.String(), region: Type.String() });
const LanguageList = Type.Object({ success: Type.Boolean(), languages: Type.Array(LanguageSchema), total: Type.Integer(), model: Type.String() });
const ModelList = Type.Object({
  models: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), languages: Type.Integer({ description: 'Languages this model really serves here.' }), plans: Type.Array(Type.String()) })),
});
const VoiceList = Type.Unsafe<Record<string, unknown>>({
  description: 'One of four shapes (docs/catalog.md): Flash (model=rapid-flash), Aura (model given), basic (language only), extended (neither).',
  type: 'object',
  additionalProperties: true,
});

function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** A short sample in the voice's language: its name, then digits read in that language. */
function sampleText(name: string, language: string): string {
  return language.startsWith('en') ? `Hello, I am ${name}. This is how I sound when I read your text.` : `${name}. 1, 2, 3, 4, 5.`;
}

export interface CatalogRouteOptions {
  services: Services;
  catalog: Catalog;
  engines: TtsEngineRegistry;
}

export const catalogRoutes: FastifyPluginAsyncTypebox<CatalogRouteOptions> = async (app, { services, catalog, engines }) => {
  const secured = { security: [{ apiKey: [] }] };

  app.get('/api/v1/models', { schema: { tags: ['catalog'], summary: 'List TTS models', ...secured, response: { 200: ModelList, ...errorResponses() } } }, async () => listModels(catalog, services.config));

  const languagesHandler = async (request: FastifyRequest) => listLanguages(catalog, (request.query as Static<typeof LanguagesQuery>).model);
  app.get('/api/v1/languages', { schema: { tags: ['catalog'], summary: 'List languages, optionally for one model', ...secured, querystring: LanguagesQuery, response: { 200: LanguageList, ...errorResponses() } } }, languagesHandler);
  // Deprecated alias: one overview of the interface lists this doubled path (decisions #6).
  app.get('/api/api/v1/languages', { schema: { hide: true, querystring: LanguagesQuery }, config: {} }, languagesHandler);

  app.get(
    '/api/v1/voices',
    { schema: { tags: ['catalog'], summary: 'List voices (shape depends on model and language)', ...secured, querystring: VoicesQuery, response: { 200: VoiceList, ...errorResponses() } } },
    async (request) => listVoices(catalog, request.query as Static<typeof VoicesQuery>, baseUrl(request)),
  );

  const previewDir = path.join(services.config.dataDir, 'previews');
  app.get(
    '/api/v1/voices/:voice/preview',
    {
      schema: {
        tags: ['catalog'],
        summary: 'A short WAV sample of a voice (no key needed; cached after first synthesis)',
        params: Type.Object({ voice: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: PreviewQuery,
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }), ...errorResponses(404) },
      },
      config: { public: true },
    },
    async (request, reply) => {
      const { voice } = request.params as { voice: string };
      const q = request.query as Static<typeof PreviewQuery>;
      const aura = catalog.data.auraVoices.find((v) => v.id === voice);
      const model = q.model ?? (aura ? 'aura-prime' : 'rapid-flash');
      const language = aura || q.language ? catalog.resolveLanguage(model, q.language ?? 'en-US') : undefined;
      const name = aura ? catalog.auraName(aura, language!) : voice;
      const selection = catalog.selectVoice({ model, language: language ?? 'en-US', languageGiven: language !== undefined, voice: name, plan: 'enterprise' });
      const file = path.join(previewDir, `${model}--${selection.voice.id}--${selection.language}.wav`);
      let bytes: Buffer | null = await readFile(file).catch(() => null);
      if (!bytes) {
        const engine = engines.resolve(model, selection.language);
        const engineVoice = engine ? selection.voice.engineVoices[engine.id] : undefined;
        if (!engine || engineVoice === undefined) throw new ApiError('LANGUAGE_NOT_SUPPORTED', { details: { provided: selection.language } });
        const pcm = await renderItems(
          services.pool,
          { engine, engineVoice, language: selection.language, speed: selection.voice.baseRate, pitch: selection.voice.basePitch },
          [{ type: 'text', text: sampleText(selection.voice.name, selection.language), whisper: false, emphasis: false }],
        );
        bytes = Buffer.from(await finishDocument(services.pool, [pcm], [], 24000, 'wav'));
        await mkdir(previewDir, { recursive: true });
        // Write then rename, so a concurrent reader never sees half a file.
        const tmp = `${file}.${process.pid}.tmp`;
        await writeFile(tmp, bytes);
        await rename(tmp, file);
      }
      return reply.header('Content-Type', 'audio/wav').header('Cache-Control', 'public, max-age=86400').header('Content-Length', String(bytes.length)).send(bytes);
    },
  );
};
