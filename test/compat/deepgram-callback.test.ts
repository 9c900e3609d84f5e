// Deepgram's `callback` on POST /v1/listen through the official `@deepgram/sdk`, unchanged but for
// its base URL and key, against a real listening app with its job work running: the request is
// answered at once with {"request_id"}, the job runs, and a local receiver (allowed by
// PARLA_FETCH_ALLOW_HOSTS) gets Deepgram's full answer with the same request_id, by POST or PUT,
// with dg-token and Basic credentials as Deepgram sends them; a failed job sends Deepgram's error
// body; a receiver that fails is called again. Billing equals the answer-now path's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Deepgram, DeepgramClient, DeepgramError } from '@deepgram/sdk';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { flite, wordErrorRate } from '../helpers/speech.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';
import { verifyWebhookSignature, newWebhookSecret } from '../../src/jobs/webhook-signature.js';

interface Call {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let t: TestApp;
let work: JobWork;
let baseUrl: string;
let key: string;
let keyId: string;
let accountId: string;
let client: DeepgramClient;
let foxBytes: Buffer;
let receiver: http.Server;
let hookBase: string;
const calls: Call[] = [];
let failNext = 0;
const FOX = 'the quick brown fox jumps over the lazy dog';
const FOX_MAX_WER = 0.23;

before(async () => {
  receiver = http.createServer((req, res) => {
    if (req.url === '/fox.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(foxBytes);
    if (req.method === 'GET') return res.writeHead(404).end('no');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      calls.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end('later');
      } else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // The operator allowed this loopback address (callbacks follow the job queue's fetch rules).
  t = await createTestApp({ PARLA_FETCH_ALLOW_HOSTS: '127.0.0.1:*' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  work = startJobWork(t.services, { webhookScheduleMs: [300, 300], pollMs: 200 });
  ({ apiKey: key, keyId, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  client = new DeepgramClient({ apiKey: key, baseUrl });
  foxBytes = readFileSync(flite('The quick brown fox jumps over the lazy dog.'));
  await t.services.registry.whenReady();
});
after(async () => {
  await work?.stop();
  await t?.close();
  receiver?.close();
});

/** The receiver's calls to `path`, once there are `n`. */
async function callsTo(path: string, n = 1, ms = 60_000): Promise<Call[]> {
  const started = Date.now();
  for (;;) {
    const got = calls.filter((c) => c.url === path);
    if (got.length >= n) return got;
    if (Date.now() - started > ms) assert.fail(`${path}: ${got.length} of ${n} calls after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const balance = () => t.services.store.getBalance(accountId, 'live');

describe('callback through the SDK', () => {
  test('transcribeFile: {request_id} at once, then the full answer POSTed with that request_id, signed, billed as the answer-now path', async () => {
    // The answer-now path's price for the same audio and options.
    const b0 = await balance();
    const now = (await client.listen.v1.media.transcribeFile(foxBytes, {
      model: 'nova-3',
      punctuate: true,
      utterances: true,
    })) as Deepgram.ListenV1Response;
    const syncCost = b0 - (await balance());
    assert.ok(syncCost > 0);

    const b1 = await balance();
    const { data, rawResponse } = await client.listen.v1.media
      .transcribeFile(foxBytes, { model: 'nova-3', punctuate: true, utterances: true, callback: `${hookBase}/file`, tag: ['run-1'] })
      .withRawResponse();
    const accepted = data as Deepgram.ListenV1AcceptedResponse;
    assert.equal(rawResponse.status, 200);
    assert.match(accepted.request_id, /^req_/);
    assert.equal(rawResponse.headers.get('dg-request-id'), accepted.request_id);
    assert.deepEqual(Object.keys(accepted), ['request_id']);

    const [call] = await callsTo('/file');
    assert.equal(call!.method, 'POST');
    assert.match(String(call!.headers['content-type']), /^application\/json/);
    assert.equal(call!.headers['dg-token'], keyId);
    assert.equal(call!.headers['dg-request-id'], accepted.request_id);
    const secret = await t.services.store.getWebhookSecret(accountId, newWebhookSecret());
    assert.ok(
      verifyWebhookSignature({
        secret: secret!,
        header: call!.headers['x-parla-signature'] as string,
        body: call!.body,
        nowSeconds: Math.floor(Date.now() / 1000),
      }),
    );
    const r = JSON.parse(call!.body) as Deepgram.ListenV1Response;
    // The answer the synchronous request had, but for its own request id and time (the recognizer's
    // scores differ a little from one run to the next: its normalization adapts).
    assert.equal(r.metadata.duration, now.metadata.duration);
    assert.deepEqual(r.metadata.model_info, now.metadata.model_info);
    assert.deepEqual(r.metadata.models, now.metadata.models);
    assert.deepEqual(Object.keys(r.results).sort(), Object.keys(now.results).sort());
    assert.deepEqual(
      Object.keys(r.results.channels[0]!.alternatives![0]!).sort(),
      Object.keys(now.results.channels[0]!.alternatives![0]!).sort(),
    );
    assert.deepEqual(Object.keys(r.results.utterances![0]!).sort(), Object.keys(now.results.utterances![0]!).sort());
    const transcript = r.results.channels[0]!.alternatives![0]!.transcript!;
    assert.ok(wordErrorRate(FOX, transcript) <= FOX_MAX_WER, transcript);
    // Billed once, the same as the answer-now path.
    assert.equal(b1 - (await balance()), syncCost);
  });

  test('transcribeUrl with callback_method=put and Basic credentials in the callback URL', async () => {
    const withCredentials = hookBase.replace('http://', 'http://alice:s%3Acret@');
    const accepted = (await client.listen.v1.media.transcribeUrl({
      url: `${hookBase}/fox.wav`,
      model: 'nova-3',
      callback: `${withCredentials}/put`,
      callback_method: 'PUT',
    })) as Deepgram.ListenV1AcceptedResponse;
    const [call] = await callsTo('/put');
    assert.equal(call!.method, 'PUT');
    assert.equal(call!.headers.authorization, `Basic ${Buffer.from('alice:s:cret').toString('base64')}`);
    const r = JSON.parse(call!.body) as Deepgram.ListenV1Response;
    assert.equal(r.metadata.request_id, accepted.request_id);
    assert.equal(r.metadata.sha256, createHash('sha256').update(foxBytes).digest('hex'));
    assert.ok(wordErrorRate(FOX, r.results.channels[0]!.alternatives![0]!.transcript!) <= FOX_MAX_WER);
    // The job as the native API shows it: its callback URL without the credentials.
    const page = await t.services.jobs.queue.list(accountId, { limit: 100 });
    const job = page.jobs.find((j) => j.callbackUrl === `${hookBase}/put`);
    assert.ok(job, JSON.stringify(page.jobs.map((j) => j.callbackUrl)));
    const shown = await t.app.inject({ method: 'GET', url: `/api/v1/stt/jobs/${job.id}`, headers: { 'x-api-key': key } });
    assert.equal(shown.statusCode, 200, shown.body);
    assert.equal(shown.json().job.callback_url, `${hookBase}/put`);
    assert.equal(shown.body.includes('alice'), false, shown.body);
  });

  test("a receiver that fails is called again; a job that fails sends Deepgram's error body, unbilled", async () => {
    failNext = 1;
    const ok = (await client.listen.v1.media.transcribeUrl({
      url: `${hookBase}/fox.wav`,
      model: 'nova-3',
      callback: `${hookBase}/retry`,
    })) as Deepgram.ListenV1AcceptedResponse;
    const tries = await callsTo('/retry', 2);
    assert.equal(tries[0]!.body, tries[1]!.body, 'every attempt carries the same bytes');
    assert.equal(JSON.parse(tries[1]!.body).metadata.request_id, ok.request_id);

    const b = await balance();
    const failed = (await client.listen.v1.media.transcribeUrl({
      url: `${hookBase}/missing.wav`,
      model: 'nova-3',
      callback: `${hookBase}/failed`,
    })) as Deepgram.ListenV1AcceptedResponse;
    const [call] = await callsTo('/failed');
    const body = JSON.parse(call!.body) as Record<string, string>;
    assert.equal(body.request_id, failed.request_id);
    assert.equal(body.err_code, 'Bad Request');
    assert.equal(body.parla_code, 'URL_FETCH_FAILED');
    assert.equal(typeof body.err_msg, 'string');
    // Not audio at all: the decoder's refusal reaches the callback too.
    await client.listen.v1.media.transcribeFile(Buffer.from('this is certainly not audio, only text'), {
      model: 'nova-3',
      callback: `${hookBase}/garbage`,
    });
    const [garbage] = await callsTo('/garbage');
    assert.equal(JSON.parse(garbage!.body).parla_code, 'INVALID_AUDIO');
    assert.equal(await balance(), b, 'failed jobs cost nothing');
  });

  test("refused at once in Deepgram's shape: a callback URL the fetcher refuses, a name resolving inside, no credits, a bad callback_method", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const refused = async (opts: Record<string, unknown>, status: number, code: string, sdk = client) => {
      try {
        await sdk.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3', ...opts } as never);
      } catch (err) {
        assert.ok(err instanceof DeepgramError, String(err));
        assert.equal(err.statusCode, status, `${JSON.stringify(opts)}: ${JSON.stringify(err.body)}`);
        const body = err.body as Record<string, string>;
        assert.equal(body.parla_code, code, JSON.stringify(opts));
        assert.match(body.request_id!, /^req_/);
        return;
      }
      assert.fail(`${JSON.stringify(opts)} was accepted`);
    };
    const before = calls.length;
    for (const cb of [
      'ftp://127.0.0.1/x',
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://127.0.0.2/hook',
      `http://localhost:${port}/hook`,
      'not a url',
      'javascript:alert(1)',
    ]) {
      await refused({ callback: cb }, 400, 'URL_NOT_ALLOWED');
    }
    await refused({ callback: `${hookBase}/x`, callback_method: 'GET' }, 400, 'INVALID_PARAMETER');
    const broke = await createTestAccount(t.services, { plan: 'pro', credits: 0 });
    await refused({ callback: `${hookBase}/broke` }, 402, 'INSUFFICIENT_CREDITS', new DeepgramClient({ apiKey: broke.apiKey, baseUrl }));
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(calls.length, before, 'nothing was queued, nothing called');
  });
});
