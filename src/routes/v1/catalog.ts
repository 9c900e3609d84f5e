// The catalogue endpoints: models, languages (and their alias), voices and voice previews.

import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import { VoicePreviews } from '../../tts/voice-previews.js';
import { languagesRoutes } from './languages.js';
import { modelsRoutes } from './models.js';
import { voicesRoutes } from './voices.js';

export interface CatalogRouteOptions {
  services: Services;
}

/** Registered under /api/v1 (app.ts). */
export const catalogRoutes: FastifyPluginAsyncTypebox<CatalogRouteOptions> = async (app, { services }) => {
  const { catalog } = services;
  const previews = new VoicePreviews(services.pool, catalog, services.registry, path.join(services.config.dataDir, 'previews'));
  await app.register(modelsRoutes, { catalog, config: services.config });
  await app.register(languagesRoutes, { catalog });
  await app.register(voicesRoutes, { catalog, previews });
};
