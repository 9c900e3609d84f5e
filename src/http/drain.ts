// A refusal sent before the request body was read (413 for an upload over the limit, decided
// from Content-Length; any other early error) must reach the client. Answering and closing while
// the client is still writing makes Node clients (fetch, the Deepgram SDK) fail with EPIPE /
// "fetch failed" about half the time instead of reading the 413 (issue 28, item 5). So the rest
// of the body is read and discarded after the answer, up to a bound in bytes and in time (a body
// of any declared size cannot hold the connection or the CPU; nor can a client that has stopped
// sending), and only then is the connection closed. docs/operations.md, "Uploads over the limit".
// Discarding has a bound in number too (decision #58): a client refused before its upload is read
// (402 for a key without credits) can start the next upload at once, and with unbounded drains one
// account kept the node's event loop reading tens of uploads it had already refused. Past
// DRAIN_MAX_PER_ACCOUNT of one account (or DRAIN_MAX_TOTAL in all) a connection waits unread for
// its turn (its client has its answer; its writes stop at TCP's window), so a client that quickly
// sends several refused uploads still reads every refusal; past DRAIN_MAX_WAITING it is closed.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Most bytes read and discarded after an early answer (beyond them the connection is closed). */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
/** Longest time spent discarding after an early answer. */
export const DRAIN_MAX_MS = 30_000;
/** A client that sends nothing for this long while its body is discarded is not still writing: closed. */
export const DRAIN_IDLE_MS = 2_000;

/** Bodies of one account discarded at once; more wait, unread, for their turn. */
export const DRAIN_MAX_PER_ACCOUNT = 2;
/** Bodies discarded at once on the node. */
export const DRAIN_MAX_TOTAL = 16;

/** Connections refused over the bounds above that may wait, unread, for their turn; more are closed at once. */
export const DRAIN_MAX_WAITING = 16;

const draining = new Map<string, number>();
let drainingTotal = 0;
const waitingDrains: Array<{ fits(): boolean; start(): void; socket: NonNullable<IncomingMessage['socket']> }> = [];

/** How often the bytes read are looked at while discarding. */
const DRAIN_CHECK_MS = 50;

/**
 * Reads and discards what is left of `req`; past either bound the connection is closed. Bytes are
 * counted on the socket (bytesRead): a request Node has "dumped" no longer emits its body as
 * 'data' (its parser drops it), and the socket's own data goes to the native parser, not to JS.
 */
export function drainRequest(
  req: IncomingMessage,
  maxBytes = DRAIN_MAX_BYTES,
  maxMs = DRAIN_MAX_MS,
  idleMs = DRAIN_IDLE_MS,
  account: string | null = null,
): void {
  const socket = req.socket as IncomingMessage['socket'] | null | undefined;
  // Only a real socket (an injected request has a stand-in without these).
  if (
    req.complete ||
    req.destroyed ||
    !socket ||
    socket.destroyed ||
    typeof socket.destroy !== 'function' ||
    typeof socket.bytesRead !== 'number'
  )
    return;
  const key = account ?? '';
  const fits = () => drainingTotal < DRAIN_MAX_TOTAL && (account === null || (draining.get(key) ?? 0) < DRAIN_MAX_PER_ACCOUNT);
  if (fits()) return startDrain(req, socket, key, maxBytes, maxMs, idleMs);
  // Over a bound: the connection waits unread (the client's writes stop at TCP's window, its
  // answer is already out) until a drain ends, at most maxMs; too many waiting: closed at once.
  if (waitingDrains.length >= DRAIN_MAX_WAITING) return void socket.destroy();
  socket.pause();
  const waiter = { fits, start: (): void => undefined, socket };
  waitingDrains.push(waiter);
  const leave = () => {
    const i = waitingDrains.indexOf(waiter);
    if (i >= 0) waitingDrains.splice(i, 1);
  };
  const timer = setTimeout(() => {
    leave();
    socket.destroy();
  }, maxMs);
  timer.unref();
  socket.once('close', () => {
    clearTimeout(timer);
    leave();
  });
  waiter.start = () => {
    clearTimeout(timer);
    socket.resume();
    startDrain(req, socket, key, maxBytes, maxMs, idleMs);
  };
}

/** Starts the waiting drains that now fit, in the order they came. */
function startWaiting(): void {
  for (let i = 0; i < waitingDrains.length; ) {
    const w = waitingDrains[i]!;
    if (w.socket.destroyed) waitingDrains.splice(i, 1);
    else if (w.fits()) {
      waitingDrains.splice(i, 1);
      w.start();
    } else i++;
  }
}

/** Discards being done now and connections waiting for their turn (for tests and metrics). */
export function drainStats(): { draining: number; waiting: number } {
  return { draining: drainingTotal, waiting: waitingDrains.length };
}

function startDrain(
  req: IncomingMessage,
  socket: NonNullable<IncomingMessage['socket']>,
  key: string,
  maxBytes: number,
  maxMs: number,
  idleMs: number,
): void {
  drainingTotal++;
  draining.set(key, (draining.get(key) ?? 0) + 1);
  let counted = true;
  const uncount = () => {
    if (!counted) return;
    counted = false;
    drainingTotal--;
    const n = (draining.get(key) ?? 1) - 1;
    if (n > 0) draining.set(key, n);
    else draining.delete(key);
    setImmediate(startWaiting);
  };
  req.once('end', uncount);
  socket.once('close', uncount);
  const start = socket.bytesRead;
  const deadline = Date.now() + maxMs;
  let seen = start;
  let lastByteAt = Date.now();
  const check = setInterval(() => {
    if (req.complete || socket.destroyed) {
      uncount();
      return clearInterval(check);
    }
    const now = Date.now();
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead;
      lastByteAt = now;
    }
    if (seen - start > maxBytes || now > deadline || now - lastByteAt > idleMs) {
      clearInterval(check);
      socket.destroy();
    }
  }, DRAIN_CHECK_MS);
  check.unref();
  socket.once('close', () => clearInterval(check));
  // Not dumped by Node (a body parser had started reading): flowing, with nobody keeping the bytes.
  req.resume();
}

export const drainPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode >= 400 && !request.raw.complete) {
        // Fastify asks for Connection: close when a body parser failed; closing then is what cut
        // clients off mid-upload. The connection is closed (if need be) by drainRequest instead.
        reply.removeHeader('connection');
        // After Node's own end-of-response step, which may "dump" the request (it removes every
        // 'data' listener then, and would take the byte count with it).
        const account = (request as { auth?: { account?: { id?: string } } }).auth?.account?.id ?? null;
        reply.raw.once('finish', () =>
          setImmediate(() => drainRequest(request.raw, DRAIN_MAX_BYTES, DRAIN_MAX_MS, DRAIN_IDLE_MS, account)),
        );
      }
      done(null, payload);
    });
  },
  { name: 'parla-drain', fastify: '5.x' },
);
