// GET /health and GET /api/v1/health (decisions #7, #28): no authentication. The extra `checks`
// field reports store and engine readiness; status is "degraded" when a check fails.

import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';
import type { Services } from '../services.js';

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
    };
  };
  const schema = { tags: ['health'], summary: 'Service health (no authentication)', response: { 200: HealthRecord } };
  app.get('/health', { schema, config: { public: true } }, handler);
  app.get('/api/v1/health', { schema: { ...schema, hide: true }, config: { public: true } }, handler);
};
