// Every request gets an id (`req_` + 32 hex): logged, returned as X-Request-ID on every response,
// and equal to request_id in error bodies.
import { randomFillSync } from 'node:crypto';
import fp from 'fastify-plugin';

// Ids come from a buffer of random bytes refilled 256 ids at a time and turned into hex in one
// call: one call into the CSPRNG and one hex conversion per 256 requests, where a UUID per request
// with its dashes removed cost about four times as much.
const IDS_PER_FILL = 256;
const POOL = Buffer.alloc(16 * IDS_PER_FILL);
let hex = '';
let next = IDS_PER_FILL;

export function newRequestId(): string {
  if (next === IDS_PER_FILL) {
    randomFillSync(POOL);
    hex = POOL.toString('hex');
    next = 0;
  }
  const id = `req_${hex.slice(next * 32, next * 32 + 32)}`;
  next++;
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
