// Every request gets an id (`req_` + 32 hex): logged, returned as X-Request-ID on every response,
// and equal to request_id in error bodies.
import { randomUUID } from 'node:crypto';
import fp from 'fastify-plugin';

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

export const requestIdPlugin = fp(
  async (app) => {
    // A callback hook, not an async one: no promise per request for a header.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('X-Request-ID', request.id);
      done();
    });
  },
  { name: 'parla-request-id', fastify: '5.x' },
);
