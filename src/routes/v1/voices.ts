// GET /api/v1/voices in the four shapes of decisions #5, and the voice preview behind their
// preview_url / sample_url (public, so an <audio> element can play it without the key).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Catalog } from '../../catalog/catalog.js';
import { listVoices } from '../../catalog/listings.js';
import type { VoicePreviews } from '../../tts/voice-previews.js';
import { PreviewParams, PreviewQuery, VoiceListing, VoicesQuery } from '../../catalog/schemas.js';
import { errorResponses } from '../../http/schemas.js';

function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export const voicesRoutes: FastifyPluginAsyncTypebox<{ catalog: Catalog; previews: VoicePreviews }> = async (
  app,
  { catalog, previews },
) => {
  app.get(
    '/voices',
    {
      schema: {
        tags: ['catalog'],
        summary: 'List voices (shape depends on model and language)',
        security: [{ apiKey: [] }],
        querystring: VoicesQuery,
        response: { 200: VoiceListing, ...errorResponses() },
      },
    },
    async function getVoices(request) {
      return listVoices(catalog, request.query, baseUrl(request));
    },
  );

  app.get(
    '/voices/:voice/preview',
    {
      schema: {
        tags: ['catalog'],
        summary: 'A short WAV sample of a voice (no key needed; synthesized once, then cached)',
        params: PreviewParams,
        querystring: PreviewQuery,
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'audio/wav' }), ...errorResponses(404) },
      },
      config: { public: true },
    },
    async function getVoicePreview(request, reply) {
      const bytes = await previews.get({ voice: request.params.voice, model: request.query.model, language: request.query.language });
      return reply
        .header('Content-Type', 'audio/wav')
        .header('Cache-Control', 'public, max-age=86400')
        .header('Content-Length', String(bytes.length))
        .send(bytes);
    },
  );
};
