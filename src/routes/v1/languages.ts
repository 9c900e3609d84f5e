// GET /languages under /api/v1 (optionally per model) and its doubled alias /api/api/v1/languages, which
// one overview of the interface lists (decisions #6): same answer, hidden from the OpenAPI document,
// marked deprecated (RFC 9745 Deprecation header, RFC 5829 successor-version Link) so clients move.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Catalog } from '../../catalog/catalog.js';
import { listLanguages } from '../../catalog/listings.js';
import { LanguageList, LanguagesQuery } from '../../catalog/schemas.js';
import { errorResponses } from '../../http/schemas.js';

/** When the alias was deprecated (2026-11-25), as RFC 9745's structured-field date. */
const ALIAS_DEPRECATED = '@1795564800';

export const languagesRoutes: FastifyPluginAsyncTypebox<{ catalog: Catalog }> = async (app, { catalog }) => {
  const response = { 200: LanguageList, ...errorResponses() };
  app.get(
    '/languages',
    {
      schema: {
        tags: ['catalog'],
        summary: 'List languages, optionally for one model',
        security: [{ apiKey: [] }],
        querystring: LanguagesQuery,
        response,
      },
    },
    async function getLanguages(request) {
      return listLanguages(catalog, request.query.model);
    },
  );
};

/** The doubled alias, registered under the /api/api/v1 prefix (app.ts). */
export const languagesAliasRoutes: FastifyPluginAsyncTypebox<{ catalog: Catalog }> = async (app, { catalog }) => {
  const response = { 200: LanguageList, ...errorResponses() };
  app.get(
    '/languages',
    { schema: { hide: true, querystring: LanguagesQuery, response } },
    async function getLanguagesAlias(request, reply) {
      reply.header('Deprecation', ALIAS_DEPRECATED).header('Link', '</api/v1/languages>; rel="successor-version"');
      return listLanguages(catalog, request.query.model);
    },
  );
};
