// POST /api/v1/auth/tokens: a short-lived token for a browser to open one live socket with
// (docs/realtime.md, "Browser tokens"; src/accounts/live-tokens.ts). Made by a key, for that key:
// a token is refused everywhere but the live sockets' handshakes.

import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { errorResponses } from '../../http/schemas.js';
import { TOKEN_DEFAULT_TTL_SECONDS, TOKEN_MAX_TTL_SECONDS, tokenTtl } from '../../accounts/live-tokens.js';

const TokenRequest = Type.Object(
  {
    ttl_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TOKEN_MAX_TTL_SECONDS,
        default: TOKEN_DEFAULT_TTL_SECONDS,
        description: 'How long the token may be used to open a socket (a socket opened with it then lives as long as any stream).',
      }),
    ),
  },
  { $id: 'LiveTokenRequest', additionalProperties: false },
);

const TokenRecord = Type.Object(
  {
    token: Type.String({
      description:
        "ek_...: the key for one live socket, in place of the API key: `api_key=` on the native stream, `Authorization: Bearer` or the subprotocols `bearer, <token>` on Deepgram's /v1/listen, `openai-insecure-api-key.<token>` on /v1/realtime.",
    }),
    expires_at: Type.String({ format: 'date-time' }),
    expires_in: Type.Integer({ description: 'Seconds from now.' }),
  },
  { $id: 'LiveToken' },
);

export const authTokenRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/auth/tokens',
    {
      schema: {
        tags: ['stt'],
        summary: 'A short-lived token for a browser to open a live socket',
        description: `The token belongs to the calling key (same account, plan, limits and billing), opens live sockets only (native, Deepgram's /v1/listen, OpenAI's /v1/realtime), for ${TOKEN_DEFAULT_TTL_SECONDS} s unless ttl_seconds says otherwise (at most ${TOKEN_MAX_TTL_SECONDS}), and stops working when the key is revoked, disabled or expires. Never stored: it is signed.`,
        security: [{ apiKey: [] }],
        body: Type.Optional(TokenRequest),
        response: { 200: TokenRecord, ...errorResponses() },
      },
      // A POST without a body asks for the defaults (the schema validates an object).
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async function createToken(request) {
      const body = request.body as { ttl_seconds?: unknown } | undefined;
      const issued = services.authenticator.tokens.issue(request.auth.key.id, tokenTtl(body?.ttl_seconds, 'ttl_seconds'));
      return { token: issued.token, expires_at: new Date(issued.expiresAt * 1000).toISOString(), expires_in: issued.ttlSeconds };
    },
  );
};
