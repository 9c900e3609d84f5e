// POST /v1/realtime/client_secrets: OpenAI's ephemeral key for browsers (`{value: "ek_...",
// expires_at, session}`), a Parla browser token (src/accounts/live-tokens.ts) that opens
// /v1/realtime (or any live socket) for the key that asked. The optional `session` is checked
// as a session.update would be and echoed, but not applied: the token is stateless and carries no
// configuration, so the socket starts from the defaults and the client's session.update (which
// OpenAI's clients send after connecting) sets it. Errors in OpenAI's shape.

import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../../errors.js';
import type { Services } from '../../../services.js';
import { tokenTtl } from '../../../accounts/live-tokens.js';
import { sendOpenAiError } from '../errors.js';
import { OpenAiMapper } from '../mapping.js';
import { applyUpdate, defaultConfig, renderSession } from './session-config.js';
import { DEFAULT_TRANSCRIPTION_MODEL } from './models.js';

const Body = Type.Object(
  {
    expires_after: Type.Optional(Type.Unknown({ description: '{anchor: "created_at", seconds}: 10 to 3600 (default 60).' })),
    session: Type.Optional(Type.Unknown({ description: 'A transcription session (type "transcription"), checked and echoed.' })),
  },
  { additionalProperties: true },
);

export const clientSecretRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.setErrorHandler(async (err, request, reply) => sendOpenAiError(request, reply, err));
  const mapper = new OpenAiMapper(services.config.product.openai);
  app.post(
    '/realtime/client_secrets',
    {
      schema: {
        tags: ['openai'],
        summary: 'An ephemeral key (ek_...) for a browser to open /v1/realtime',
        description:
          'OpenAI\'s client_secrets: a Parla browser token (docs/realtime.md, "Browser tokens"), 60 s unless expires_after.seconds says otherwise (10 to 3600).',
        security: [{ bearer: [] }],
        body: Type.Optional(Body),
      },
    },
    async function createClientSecret(request) {
      const body = (request.body ?? {}) as { expires_after?: unknown; session?: unknown };
      let seconds: unknown;
      if (body.expires_after !== undefined && body.expires_after !== null) {
        const ea = body.expires_after as { anchor?: unknown; seconds?: unknown };
        if (typeof ea !== 'object' || Array.isArray(ea))
          throw new ApiError('INVALID_PARAMETER', { message: 'expires_after must be an object.', details: { field: 'expires_after' } });
        if (ea.anchor !== undefined && ea.anchor !== 'created_at')
          throw new ApiError('INVALID_PARAMETER', {
            message: 'expires_after.anchor must be "created_at".',
            details: { field: 'expires_after.anchor' },
          });
        seconds = ea.seconds;
      }
      const ttl = tokenTtl(seconds, 'expires_after.seconds', 10);
      const config =
        body.session === undefined || body.session === null
          ? defaultConfig(DEFAULT_TRANSCRIPTION_MODEL)
          : applyUpdate(defaultConfig(DEFAULT_TRANSCRIPTION_MODEL), body.session);
      // The model must be one this server maps, as on the socket.
      mapper.sttModel(config.model);
      const issued = services.authenticator.tokens.issue(request.auth.key.id, ttl);
      return {
        value: issued.token,
        expires_at: issued.expiresAt,
        session: renderSession(`sess_${request.id.replace(/^req_/, '')}`, config, issued.expiresAt),
      };
    },
  );
};
