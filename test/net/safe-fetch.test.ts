// The SSRF-safe fetcher against a real local HTTP server: refused by default (it is loopback),
// reached through the allow-list, with redirects, injected DNS answers, size and time limits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import {
  checkUrl,
  checkUrlNow,
  DownloadTooSlowError,
  FileTooLargeError,
  isPublicAddress,
  UrlFetchFailedError,
  UrlNotAllowedError,
  type FetchPolicy,
  type Limits,
  type Resolver,
} from '../../src/net/safe-fetch.js';
import { fetchErrorToApi } from '../../src/faults/translate.js';
import { safeDownload } from '../../src/net/safe-download.js';
import type { ApiError } from '../../src/errors.js';
import { tempDir, testConfig } from '../helpers/env.js';
import { parseAllowHostEntry } from '../../src/domain/allow-hosts.js';

const FAST: Limits = { connectTimeoutMs: 2000, idleTimeoutMs: 2000, totalTimeoutMs: 5000 };

describe('safe fetch', () => {
  let server: http.Server;
  let port: number;
  let base: string;
  let hits = 0;
  const tmp = tempDir();
  const policy = (extra: Partial<FetchPolicy> = {}): FetchPolicy => ({ allowPrivate: false, allowHosts: ['127.0.0.1:*'], ...extra });

  before(async () => {
    server = http.createServer((req, res) => {
      hits++;
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/audio':
          res.writeHead(200, { 'content-type': 'audio/wav' });
          res.end(Buffer.alloc(3000, 7));
          return;
        case '/redirect': {
          const to = url.searchParams.get('to')!;
          res.writeHead(302, { location: to });
          res.end();
          return;
        }
        case '/chain': {
          const n = Number(url.searchParams.get('n'));
          res.writeHead(301, { location: n > 0 ? `/chain?n=${n - 1}` : '/audio' });
          res.end();
          return;
        }
        case '/big-chunked':
          res.writeHead(200, { 'content-type': 'audio/mpeg' });
          for (let i = 0; i < 64; i++) res.write(Buffer.alloc(32 * 1024, 1));
          res.end();
          return;
        case '/big-announced':
          res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
          res.write(Buffer.alloc(1024));
          return; // never ends: the announced length alone must fail it
        case '/stall':
          res.writeHead(200);
          res.write(Buffer.alloc(10));
          return; // headers and 10 bytes, then silence
        case '/trickle': {
          res.writeHead(200);
          const t = setInterval(() => res.write('x'), 50);
          res.on('close', () => clearInterval(t));
          return;
        }
        case '/drip': {
          // One byte every 100 ms: never idle, far under any useful rate.
          res.writeHead(200);
          const t = setInterval(() => res.write('x'), 100);
          res.on('close', () => clearInterval(t));
          return;
        }
        case '/burst-then-drip': {
          // 64 KB at once (a good average for a long while), then a byte every 100 ms.
          res.writeHead(200);
          res.write(Buffer.alloc(64 * 1024, 3));
          const t = setInterval(() => res.write('x'), 100);
          res.on('close', () => clearInterval(t));
          return;
        }
        case '/steady': {
          // 2 KB every 50 ms (40 KB/s) for 1.5 s.
          res.writeHead(200);
          let n = 0;
          const t = setInterval(() => {
            res.write(Buffer.alloc(2048, 5));
            if (++n === 30) {
              clearInterval(t);
              res.end();
            }
          }, 50);
          res.on('close', () => clearInterval(t));
          return;
        }
        case '/missing':
          res.writeHead(404);
          res.end('no');
          return;
      }
      res.writeHead(500);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  const download = (url: string, p: FetchPolicy = policy(), maxBytes = 1024 * 1024, limits = FAST) =>
    safeDownload(url, { policy: p, maxBytes, dir: tmp.dir, limits });

  test('a local server is refused by default (loopback) and reached through the allow-list', async () => {
    const before = hits;
    await assert.rejects(download(`${base}/audio`, { allowPrivate: false, allowHosts: [] }), UrlNotAllowedError);
    assert.equal(hits, before, 'no request was made');
    const d = await download(`${base}/audio`);
    assert.equal(d.bytes, 3000);
    assert.equal(d.contentType, 'audio/wav');
    assert.deepEqual(readFileSync(d.path), Buffer.alloc(3000, 7));
    const open = await download(`${base}/audio`, { allowPrivate: true, allowHosts: [] });
    assert.equal(open.bytes, 3000, 'PARLA_FETCH_ALLOW_PRIVATE lets it through too');
  });

  test('only http(s), no credentials, no private literals (IPv4, IPv6, IPv4-mapped IPv6)', () => {
    const p = policy({ allowHosts: [] });
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/a.mp3',
      'gopher://example.com/',
      'data:audio/wav;base64,AAAA',
      'https://user:pass@example.com/a.mp3',
      'https://user@example.com/a.mp3',
      'not a url',
      'http://127.0.0.1/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0.0.0.0/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://[::1]/',
      'http://[::]/',
      'http://[fe80::1]/',
      'http://[fd00:ec2::254]/',
      'http://[ff02::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a00:1]/',
      `http://example.com/${'a'.repeat(5000)}`,
    ]) {
      assert.throws(() => checkUrl(url, p), UrlNotAllowedError, url);
    }
    assert.equal(checkUrl('https://example.com/a.mp3', p).hostname, 'example.com');
    assert.equal(checkUrl('http://93.184.216.34/a.mp3', p).hostname, '93.184.216.34');
    assert.equal(checkUrl('http://[2606:4700:4700::1111]/', p).hostname, '[2606:4700:4700::1111]');
  });

  test('address classes: only public unicast passes', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.251',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '2002:a00:1::1',
      'garbage',
    ]) {
      assert.equal(isPublicAddress(a), false, a);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
  });

  // Issue 30, item 6: the IPv6 forms that embed an IPv4 address, as URL literals and as DNS answers.
  const EMBEDDING = [
    '::127.0.0.1',
    '::10.0.0.1',
    '::8.8.8.8',
    '0:0:0:0:0:0:127.0.0.1',
    '::7f00:1', // IPv4-compatible
    '::ffff:0:127.0.0.1',
    '::ffff:0:8.8.8.8', // SIIT
    '64:ff9b::127.0.0.1',
    '64:ff9b::8.8.8.8',
    '64:ff9b::a00:1', // NAT64 well-known
    '64:ff9b:1::127.0.0.1',
    '64:ff9b:1:ffff::a00:1', // NAT64 local use (/48)
    '2002:7f00:1::1',
    '2002:a00:1::',
    '2002:808:808::1', // 6to4
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001::1', // Teredo (client 127.0.0.1)
    '2606:4700::5efe:127.0.0.1',
    'fe80::200:5efe:10.0.0.1', // ISATAP
  ];

  test('every IPv6 form that embeds IPv4 is refused (compatible, SIIT, NAT64 /96 and /48, 6to4, Teredo, ISATAP); IPv4-mapped is judged as its IPv4', async () => {
    const p = policy({ allowHosts: [] });
    for (const a of EMBEDDING) {
      assert.equal(isPublicAddress(a), false, a);
      assert.throws(() => checkUrl(`http://[${a}]/`, p), UrlNotAllowedError, a);
      assert.throws(() => checkUrl(`http://[${a}]:${port}/audio`, p), UrlNotAllowedError, a);
    }
    assert.throws(
      () => checkUrl('http://[::127.0.0.1]/', p),
      (e: unknown) => e instanceof UrlNotAllowedError && /127\.0\.0\.1/.test(e.message) && /IPv4-compatible/.test(e.message),
    );
    assert.equal(isPublicAddress('::ffff:8.8.8.8'), true);
    assert.equal(isPublicAddress('::ffff:127.0.0.1'), false);
    // The reproducer: a literal that reached the loopback server before.
    const before = hits;
    await assert.rejects(download(`http://[::127.0.0.1]:${port}/audio`, p), UrlNotAllowedError);
    await assert.rejects(
      download(
        `${base}/redirect?to=${encodeURIComponent(`http://[::127.0.0.1]:${port}/audio`)}`,
        policy({ allowHosts: [`127.0.0.1:${port}`] }),
      ),
      UrlNotAllowedError,
    );
    // As DNS answers (AAAA records carrying an inside address).
    for (const a of EMBEDDING) {
      const resolver: Resolver = async () => [{ address: a, family: 6 }];
      await assert.rejects(
        download(`http://aaaa.test:${port}/audio`, policy({ allowHosts: [], resolve: resolver })),
        UrlNotAllowedError,
        a,
      );
    }
    assert.equal(hits, before + 1, 'only the allowed first hop of the redirect reached the server');
  });

  test('PARLA_FETCH_ALLOW_HOSTS entries name host and port: another port of the host stays closed', async () => {
    const other = http.createServer((_req, res) => res.end('secret'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const otherPort = (other.address() as AddressInfo).port;
    try {
      const onePort = policy({ allowHosts: [`127.0.0.1:${port}`] });
      assert.equal((await download(`${base}/audio`, onePort)).bytes, 3000);
      await assert.rejects(download(`http://127.0.0.1:${otherPort}/`, onePort), UrlNotAllowedError);
      // A bare host (the old syntax) allows the default port only (80 for http, 443 for https), not every port.
      const bare = policy({ allowHosts: ['127.0.0.1'] });
      await assert.rejects(download(`${base}/audio`, bare), UrlNotAllowedError);
      assert.doesNotThrow(() => checkUrl('http://127.0.0.1/x', bare));
      assert.doesNotThrow(() => checkUrl('https://127.0.0.1/x', bare));
      assert.throws(() => checkUrl('http://127.0.0.1:443/x', bare), UrlNotAllowedError);
      // host:* is every port, said explicitly.
      assert.equal((await download(`http://127.0.0.1:${otherPort}/`, policy({ allowHosts: ['127.0.0.1:*'] }))).bytes, 6);
      // By name: localhost:PORT lets the name resolve inside for that port only.
      const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const named = policy({ allowHosts: [`localhost:${port}`], resolve: resolver });
      assert.equal((await download(`http://localhost:${port}/audio`, named)).bytes, 3000);
      await assert.rejects(download(`http://localhost:${otherPort}/`, named), UrlNotAllowedError);
      // IPv6 entries in brackets, normalized as URLs write them.
      assert.doesNotThrow(() => checkUrl('http://[::1]:8099/', policy({ allowHosts: ['[0:0::1]:8099'] })));
      assert.throws(() => checkUrl('http://[::1]:8098/', policy({ allowHosts: ['[::1]:8099'] })), UrlNotAllowedError);
    } finally {
      other.close();
    }
  });

  test('allow-host entries: the syntax is checked when the configuration is read', () => {
    for (const bad of ['localhost:0', 'localhost:65536', 'localhost:http', '[::1', 'a b:80', 'host:80:90', '[::1]x']) {
      assert.equal(typeof parseAllowHostEntry(bad), 'string', bad);
      assert.throws(() => testConfig({ PARLA_FETCH_ALLOW_HOSTS: `ok.example:80,${bad}` }), /PARLA_FETCH_ALLOW_HOSTS/, bad);
    }
    assert.deepEqual(parseAllowHostEntry('LocalHost:8099'), { host: 'localhost', port: 8099 });
    assert.deepEqual(parseAllowHostEntry('media.internal'), { host: 'media.internal', port: 'default' });
    assert.deepEqual(parseAllowHostEntry('10.0.0.5:*'), { host: '10.0.0.5', port: '*' });
    assert.deepEqual(parseAllowHostEntry('::1'), { host: '[::1]', port: 'default' });
    assert.deepEqual(testConfig({ PARLA_FETCH_ALLOW_HOSTS: ' a.example:8080 , b.example ' }).jobs.fetchAllowHosts, [
      'a.example:8080',
      'b.example',
    ]);
  });

  test('a DNS answer that is private is refused before connecting; the checked answer is the one connected to', async () => {
    const asked: string[] = [];
    const resolver: Resolver = async (host) => {
      asked.push(host);
      if (host === 'evil.test') return [{ address: '192.168.1.5', family: 4 }];
      if (host === 'split.test')
        return [
          { address: '93.184.216.34', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ];
      if (host === 'media.test') return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    const before = hits;
    await assert.rejects(
      download(`http://evil.test:${port}/audio`, policy({ resolve: resolver })),
      (e: unknown) => e instanceof UrlNotAllowedError && /192\.168\.1\.5/.test(e.message),
    );
    await assert.rejects(
      download(`http://split.test:${port}/audio`, policy({ resolve: resolver })),
      UrlNotAllowedError,
      'one private answer among public ones is enough to refuse',
    );
    await assert.rejects(download(`http://media.test:${port}/audio`, policy({ resolve: resolver })), UrlNotAllowedError);
    assert.equal(hits, before);
    // Listed by name: the injected answer (a name no real DNS knows) is what the socket connects to.
    const d = await download(`http://media.test:${port}/audio`, policy({ resolve: resolver, allowHosts: ['media.test:*'] }));
    assert.equal(d.bytes, 3000);
    await assert.rejects(download(`http://nowhere.test:${port}/audio`, policy({ resolve: resolver })), UrlFetchFailedError);
    assert.ok(asked.includes('media.test'));
  });

  test('redirects are followed (at most 5) and each one is checked again', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const d = await download(`${base}/chain?n=4`);
    assert.equal(d.bytes, 3000, 'five redirects are fine');
    assert.match(d.finalUrl, /\/audio$/);
    await assert.rejects(
      download(`${base}/chain?n=5`),
      (e: unknown) => e instanceof UrlFetchFailedError && /more than 5 redirects/.test(e.message),
    );
    const p = policy({ resolve: resolver });
    await assert.rejects(download(`${base}/redirect?to=${encodeURIComponent('http://10.0.0.1/x')}`, p), UrlNotAllowedError);
    await assert.rejects(
      download(`${base}/redirect?to=${encodeURIComponent(`http://internal.test:${port}/audio`)}`, p),
      UrlNotAllowedError,
      'a redirect to a name resolving inside',
    );
    await assert.rejects(
      download(`${base}/redirect?to=${encodeURIComponent('http://[::ffff:127.0.0.1]/audio')}`, policy({ allowHosts: ['127.0.0.1:*'] })),
      UrlNotAllowedError,
    );
    await assert.rejects(download(`${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`), UrlNotAllowedError);
    await assert.rejects(download(`${base}/redirect?to=${encodeURIComponent('http://u:p@127.0.0.1/')}`), UrlNotAllowedError);
  });

  test('size: a body over the limit is cut and its file removed; an announced length over it fails at once', async () => {
    const before = readdirSync(tmp.dir).length;
    await assert.rejects(
      download(`${base}/big-chunked`, policy(), 1024 * 1024),
      (e: unknown) => e instanceof FileTooLargeError && e.limit === 1024 * 1024,
    );
    assert.equal(readdirSync(tmp.dir).length, before, 'the partial file is deleted');
    const started = Date.now();
    await assert.rejects(download(`${base}/big-announced`, policy(), 1024 * 1024), FileTooLargeError);
    assert.ok(Date.now() - started < 1500);
    const ok = await download(`${base}/big-chunked`, policy(), 2 * 1024 * 1024);
    assert.equal(ok.bytes, 2 * 1024 * 1024);
    assert.ok(existsSync(ok.path));
  });

  test('time: a stalled server hits the idle limit, a trickling one the total limit; HTTP errors fail', async () => {
    await assert.rejects(
      download(`${base}/stall`, policy(), 1024, { connectTimeoutMs: 2000, idleTimeoutMs: 200, totalTimeoutMs: 5000 }),
      (e: unknown) => e instanceof UrlFetchFailedError && /no data for 200 ms/.test(e.message),
    );
    await assert.rejects(
      download(`${base}/trickle`, policy(), 1024 * 1024, { connectTimeoutMs: 2000, idleTimeoutMs: 1000, totalTimeoutMs: 400 }),
      (e: unknown) => e instanceof UrlFetchFailedError && /within 400 ms/.test(e.message),
    );
    await assert.rejects(download(`${base}/missing`), (e: unknown) => e instanceof UrlFetchFailedError && e.status === 404);
    const closed = `http://127.0.0.1:1/audio`;
    await assert.rejects(download(closed, policy()), UrlFetchFailedError);
    // A peer that takes the TCP connection but never finishes the TLS handshake: the connect limit.
    const mute = net.createServer((socket) => socket.resume()); // reads (and ignores) the ClientHello, so it sees the client leave
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    try {
      const mutePort = (mute.address() as AddressInfo).port;
      await assert.rejects(
        download(`https://127.0.0.1:${mutePort}/a`, policy(), 1024, { connectTimeoutMs: 200, idleTimeoutMs: 5000, totalTimeoutMs: 5000 }),
        (e: unknown) => e instanceof UrlFetchFailedError && /no connection within 200 ms/.test(e.message),
      );
    } finally {
      await new Promise((r) => mute.close(r));
    }
  });

  test('rate: a drip under the minimum fails once the window has passed, also after a burst; a steady source passes', async () => {
    const limits: Limits = {
      connectTimeoutMs: 2000,
      idleTimeoutMs: 2000,
      totalTimeoutMs: 20_000,
      minBytesPerSecond: 4096,
      rateWindowMs: 500,
    };
    const before = readdirSync(tmp.dir).length;
    const started = Date.now();
    await assert.rejects(
      download(`${base}/drip`, policy(), 1024 * 1024, limits),
      (e: unknown) =>
        e instanceof DownloadTooSlowError && e instanceof UrlFetchFailedError && /under the minimum of 4096 bytes\/s/.test(e.message),
    );
    // Well before the idle (never reached) or total limits: after the window and a tick or two.
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
    // The average since the start would stay above the minimum for 16 s; the last window's does not.
    const burst = Date.now();
    await assert.rejects(download(`${base}/burst-then-drip`, policy(), 1024 * 1024, limits), DownloadTooSlowError);
    assert.ok(Date.now() - burst < 5000, `${Date.now() - burst} ms`);
    assert.equal(readdirSync(tmp.dir).length, before, 'the partial files are deleted');
    const ok = await download(`${base}/steady`, policy(), 1024 * 1024, limits);
    assert.equal(ok.bytes, 30 * 2048);
    // Without a minimum the drip is only stopped by the other limits.
    await assert.rejects(
      download(`${base}/drip`, policy(), 1024 * 1024, { connectTimeoutMs: 2000, idleTimeoutMs: 2000, totalTimeoutMs: 1200 }),
      (e: unknown) => e instanceof DownloadTooSlowError && /within 1200 ms/.test(e.message),
    );
  });

  test('errors map to the API codes', () => {
    const a = fetchErrorToApi(new UrlNotAllowedError('x')) as ApiError;
    assert.equal(a.code, 'URL_NOT_ALLOWED');
    assert.equal(a.status, 400);
    const b = fetchErrorToApi(new UrlFetchFailedError('HTTP 503', 503)) as ApiError;
    assert.equal(b.code, 'URL_FETCH_FAILED');
    assert.equal(b.details.status, 503);
    const c = fetchErrorToApi(new FileTooLargeError(5)) as ApiError;
    assert.equal(c.code, 'FILE_TOO_LARGE');
    assert.equal(c.status, 413);
    const other = new Error('x');
    assert.equal(fetchErrorToApi(other), other);
  });
});

test("checkUrlNow (a URL to be called later): the host resolved now; a name leading inside is refused, one that does not resolve passes, the operator's entries pass", async () => {
  const answers: Record<string, string[]> = {
    'inside.test': ['10.1.2.3'],
    'both.test': ['93.184.216.34', '127.0.0.1'],
    'public.test': ['93.184.216.34'],
    'mapped.test': ['::ffff:169.254.169.254'],
  };
  const resolve: Resolver = async (host) => {
    const a = answers[host];
    if (!a) throw new Error('ENOTFOUND');
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const policy: FetchPolicy = { allowPrivate: false, allowHosts: [], resolve };
  for (const host of ['inside.test', 'both.test', 'mapped.test'])
    await assert.rejects(checkUrlNow(`http://${host}/hook`, policy), UrlNotAllowedError, host);
  assert.equal((await checkUrlNow('http://public.test/hook', policy)).host, 'public.test');
  assert.equal((await checkUrlNow('http://nowhere.test/hook', policy)).host, 'nowhere.test', 'checked again when called');
  assert.equal((await checkUrlNow('http://inside.test:8080/hook', { ...policy, allowHosts: ['inside.test:8080'] })).port, '8080');
  await assert.rejects(checkUrlNow('http://10.0.0.1/', policy), UrlNotAllowedError);
  await assert.rejects(checkUrlNow('ftp://public.test/', policy), UrlNotAllowedError);
});
