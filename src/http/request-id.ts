// Every request gets an id (`req_` + 32 hex): logged, returned as X-Request-ID on every response,
// and equal to request_id in error bodies.
import { randomFillSync } from 'node:crypto';
import fp from 'fastify-plugin';

// Ids come from a buffer of random bytes refilled 256 ids at a time: one call into the CSPRNG per
// 256 requests, where a UUID per request with its dashes removed cost about four times as much.
const POOL = Buffer.alloc(16 * 256);
let offset = POOL.length;

export function newRequestId(): string {
  if (offset === POOL.length) {
    randomFillSync(POOL);
    offset = 0;
  }
  const id = `req_${POOL.toString('hex', offset, offset + 16)}`;
  offset += 16;
  return id;
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
