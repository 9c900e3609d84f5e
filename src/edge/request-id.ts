// Request ids (`req_` + 32 hex), for every edge: logged, returned as X-Request-ID on HTTP answers
// and WebSocket upgrades, and equal to request_id in error bodies.
import { randomFillSync } from 'node:crypto';

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
