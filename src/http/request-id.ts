// Every HTTP request gets an id (src/edge/request-id.ts makes them): logged, returned as
// X-Request-ID on every response, and equal to request_id in error bodies.
import fp from 'fastify-plugin';

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
