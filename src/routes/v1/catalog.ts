// The catalogue endpoints: models, languages (and their alias), voices and voice previews.

import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.js';
import type { Catalog } from '../../catalog/catalog.js';
import { VoicePreviews } from '../../catalog/previews.js';
import type { TtsEngineRegistry } from '../../engines/registry.js';
import { languagesRoutes } from './languages.js';
import { modelsRoutes } from './models.js';
import { voicesRoutes } from './voices.js';

export interface CatalogRouteOptions {
  services: Services;
  catalog: Catalog;
  engines: TtsEngineRegistry;
}

export const catalogRoutes: FastifyPluginAsyncTypebox<CatalogRouteOptions> = async (app, { services, catalog, engines }) => {
  const previews = new VoicePreviews(services.pool, catalog, engines, path.join(services.config.dataDir, 'previews'));
  await app.register(modelsRoutes, { catalog, config: services.config });
  await app.register(languagesRoutes, { catalog });
  await app.register(voicesRoutes, { catalog, previews });
};
