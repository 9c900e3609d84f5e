// Request loggers are built lazily (src/http/lazy-child-logger.ts): lines written through a request's
// logger still carry its request id; below the level nothing is built or written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createTestApp } from '../helpers/app.js';
import { loggerOptions } from '../../src/app.js';
import { LazyChildLogger } from '../../src/http/lazy-child-logger.js';

function sink(): { stream: Writable; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return {
    lines,
    stream: new Writable({
      write(chunk, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    }),
  };
}

async function appLogging(level: string) {
  const s = sink();
  const t = await createTestApp(
    {},
    {
      logger: pino(loggerOptions(level), s.stream),
      beforeReady: (app) => {
        app.get('/boom', { config: { public: true } }, async () => {
          throw new Error('kaboom');
        });
        app.get('/logger-kind', { config: { public: true } }, async (request) => ({ lazy: request.log instanceof LazyChildLogger }));
      },
    },
  );
  return { t, lines: s.lines };
}

test('at warn: a failing request logs its error with its request id, and an ordinary one writes nothing', async () => {
  const { t, lines } = await appLogging('warn');
  try {
    const ok = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(
      (await t.app.inject({ method: 'GET', url: '/logger-kind' })).json(),
      { lazy: true },
      'the app builds request loggers lazily',
    );
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/models', headers: { 'x-api-key': 'not-a-key' } });
    assert.equal(refused.statusCode, 401);
    assert.equal(lines.length, 0, 'no request lines below warn');
    const res = await t.app.inject({ method: 'GET', url: '/boom' });
    assert.equal(res.statusCode, 500);
    const failed = lines.filter((l) => l.msg === 'request failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.reqId, res.headers['x-request-id']);
    assert.equal(failed[0]!.level, 50);
  } finally {
    await t.close();
  }
});

test('at info: every request line carries the request id of its response', async () => {
  const { t, lines } = await appLogging('info');
  try {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/models', headers: { 'x-api-key': 'not-a-key' } });
    assert.equal(res.statusCode, 401);
    const mine = lines.filter((l) => l.reqId === res.headers['x-request-id']);
    assert.ok(
      mine.some((l) => l.msg === 'incoming request'),
      JSON.stringify(lines),
    );
    assert.ok(mine.some((l) => l.msg === 'request completed'));
    assert.ok(
      mine.some((l) => typeof l.msg === 'string' && l.msg.includes('not recognized')),
      'the 401 is logged at info',
    );
  } finally {
    await t.close();
  }
});

test('LazyChildLogger builds the child only for a line that will be written, once', () => {
  const s = sink();
  const parent = pino({ level: 'warn' }, s.stream);
  let built = 0;
  const child = parent.child.bind(parent);
  parent.child = ((...args: Parameters<typeof child>) => (built++, child(...args))) as typeof parent.child;
  const log = new LazyChildLogger(parent, { reqId: 'req_1' }, {});
  log.info('below the level');
  log.debug({ a: 1 }, 'below the level');
  assert.equal(built, 0);
  assert.equal(log.level, 'warn');
  log.warn({ n: 1 }, 'first');
  log.error('second %s', 'formatted');
  assert.equal(built, 1);
  assert.deepEqual(
    s.lines.map((l) => [l.reqId, l.msg, l.level]),
    [
      ['req_1', 'first', 40],
      ['req_1', 'second formatted', 50],
    ],
  );
  assert.equal(s.lines[0]!.n, 1);
  // A child of its own level decides for itself.
  const verbose = new LazyChildLogger(parent, { reqId: 'req_2' }, { level: 'debug' });
  verbose.debug('shown');
  assert.deepEqual(s.lines.at(-1)!.msg, 'shown');
  assert.equal(verbose.level, 'debug');
});
