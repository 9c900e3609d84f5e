// POST /v1/auth/grant: Deepgram's temporary token (`{ttl_seconds}` -> `{access_token,
// expires_in}`, as @deepgram/sdk's auth.v1.tokens.grant() asks), here a Parla browser token
// (src/accounts/live-tokens.ts): the browser then opens /v1/listen with `Authorization: Bearer
// <token>` or the subprotocols `bearer, <token>`. Errors in Deepgram's shape.

import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { TOKEN_DEFAULT_TTL_SECONDS, TOKEN_MAX_TTL_SECONDS, tokenTtl } from '../../accounts/live-tokens.js';
import { sendDeepgramError } from './errors.js';

export const deepgramGrantRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.setErrorHandler(async (err, request, reply) => sendDeepgramError(request, reply, err));
  app.post(
    '/auth/grant',
    {
      schema: {
        tags: ['deepgram'],
        summary: 'A temporary token for a browser to open /v1/listen',
        description: `Deepgram's grant: a Parla browser token (docs/realtime.md, "Browser tokens") for ${TOKEN_DEFAULT_TTL_SECONDS} s unless ttl_seconds says otherwise (1 to ${TOKEN_MAX_TTL_SECONDS}).`,
        body: Type.Optional(Type.Object({ ttl_seconds: Type.Optional(Type.Unknown()) }, { additionalProperties: true })),
      },
    },
    async function createGrant(request, reply) {
      const body = (request.body ?? {}) as { ttl_seconds?: unknown };
      const issued = services.authenticator.tokens.issue(request.auth.key.id, tokenTtl(body.ttl_seconds, 'ttl_seconds'));
      reply.header('dg-request-id', request.id);
      return { access_token: issued.token, expires_in: issued.ttlSeconds };
    },
  );
};
