// GET /metrics on the API port, for the operator holding METRICS_TOKEN (registered only when it is
// set; METRICS_PORT serves the same text on a port of its own, src/http/metrics.ts). Prometheus'
// text format of the counters src/http/metrics.ts keeps.

import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../errors.js';
import type { Metrics } from '../http/metrics.js';

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export const metricsRoute: FastifyPluginAsync<{ metrics: Metrics; token: string }> = async (app, { metrics, token }) => {
  app.get('/metrics', { schema: { hide: true }, config: { public: true } }, async function getMetrics(request, reply) {
    if (!tokenMatches(request.headers.authorization, token)) {
      throw new ApiError('AUTH_INVALID_API_KEY', {
        message: 'The metrics endpoint needs the operator token: Authorization: Bearer <METRICS_TOKEN>.',
      });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
};
