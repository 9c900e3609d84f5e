// GET /health and GET /api/v1/health (decisions #7, #28): no authentication. The extra `checks`
// field reports store and engine readiness; status is "degraded" when a check fails. `models` says
// what serves each product model now and whether its model is loaded (src/registry/serving.ts):
// engine ids and installed model names only, no paths.

import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';
import type { Services } from '../services.js';
import { modelsServing } from '../registry/serving.js';
import { TTS_MODELS } from '../registry/model-registry.js';

export const VERSION: string = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const HealthRecord = Type.Object(
  {
    status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')]),
    version: Type.String({ description: 'Semantic version of this Parla build.' }),
    timestamp: Type.String({ format: 'date-time' }),
    checks: Type.Object({
      store: Type.Object({ ok: Type.Boolean(), kind: Type.String(), error: Type.Optional(Type.String()) }),
      engines: Type.Object({ ok: Type.Boolean(), workers: Type.Integer(), queued: Type.Integer() }),
    }),
    models: Type.Object(
      {
        stt: Type.Array(
          Type.Object({
            model: Type.String(),
            engine: Type.Union([Type.String(), Type.Null()], {
              description:
                'Engine serving it now (first available of its chain), e.g. "pocketsphinx" or "sherpa:whisper-base.en"; null when none is.',
            }),
            loaded: Type.Boolean({
              description: "Whether that engine's model is loaded now (models load on demand and unload when idle).",
            }),
          }),
        ),
        tts: Type.Array(
          Type.Object({
            model: Type.String(),
            engines: Type.Array(Type.String(), { description: 'Available engines in the order a voice and language are tried.' }),
            loaded: Type.Array(Type.String(), { description: 'Neural voice models of those engines loaded now ("tts:<model>").' }),
          }),
        ),
      },
      { description: 'What serves each product model in this installation now.' },
    ),
  },
  { $id: 'HealthRecord' },
);

export const healthRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const handler = async () => {
    let store: { ok: boolean; kind: string; error?: string } = { ok: true, kind: services.store.kind };
    try {
      await Promise.race([
        services.store.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('store ping timed out')), 1000).unref()),
      ]);
    } catch (err) {
      store = { ok: false, kind: services.store.kind, error: (err as Error).message };
    }
    const pool = services.pool.stats();
    return {
      status: store.ok ? ('healthy' as const) : ('degraded' as const),
      version: VERSION,
      timestamp: new Date().toISOString(),
      checks: { store, engines: { ok: pool.threads > 0, workers: pool.threads, queued: pool.queued } },
      models: modelsServing(services.registry, services.lifecycle, TTS_MODELS),
    };
  };
  const schema = { tags: ['health'], summary: 'Service health (no authentication)', response: { 200: HealthRecord } };
  app.get('/health', { schema, config: { public: true } }, handler);
  app.get('/api/v1/health', { schema: { ...schema, hide: true }, config: { public: true } }, handler);
};
