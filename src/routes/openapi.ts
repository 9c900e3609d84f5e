// GET /openapi.json: the OpenAPI document @fastify/swagger builds from every route's schema (the
// same document /docs shows). Public, as the documentation is.

import type { FastifyPluginAsync } from 'fastify';

export const openApiRoute: FastifyPluginAsync = async (app) => {
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async function getOpenApi() {
    return app.swagger();
  });
};
