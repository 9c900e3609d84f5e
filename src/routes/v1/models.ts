// GET /api/v1/models: the TTS models with the number of languages each really serves here.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import type { Catalog } from '../../catalog/catalog.js';
import { listModels } from '../../catalog/listings.js';
import { ModelList } from '../../catalog/schemas.js';
import { errorResponses } from '../../http/schemas.js';

export const modelsRoutes: FastifyPluginAsyncTypebox<{ catalog: Catalog; config: Config }> = async (app, { catalog, config }) => {
  // The same for every caller while the process runs (engines and plans are fixed at start):
  // built and serialized (by the route's own response serializer) on first use, not per request.
  let body: string | undefined;
  app.get(
    '/models',
    {
      schema: {
        tags: ['catalog'],
        summary: 'List TTS models',
        security: [{ apiKey: [] }],
        response: { 200: ModelList, ...errorResponses() },
      },
    },
    // Not async: an async handler returning the reply makes Fastify wait for the response's end
    // through a promise and stream listeners (~1 us per request on the most-called listing).
    function getModels(_request, reply) {
      body ??= String(reply.serialize(listModels(catalog, config)));
      // A string body with a JSON content type is sent as is (the type provider expects the object).
      reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};
