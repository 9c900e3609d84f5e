// Deepgram's prerecorded transcription through the official `@deepgram/sdk` client, unchanged but
// for its base URL and key, against a real listening app: transcribeFile (a Buffer and a stream),
// transcribeUrl (a local server the operator allowed, and a refused address), every option this
// server supports and what it does to the answer, the WER of a known sentence, credits and usage
// equal to the native endpoint's for the same audio, and the errors as the SDK surfaces them
// (bad key, revoked key, disabled feature, no credits, rate limit, bad parameters).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Deepgram, DeepgramClient, DeepgramError } from '@deepgram/sdk';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, soxConcat, wordErrorRate } from '../helpers/speech.js';

let t: TestApp;
let baseUrl: string;
let key: string;
let client: DeepgramClient;
let fox: string;
let foxBytes: Buffer;
let audioServer: http.Server;
let audioBase: string;
const FOX = 'the quick brown fox jumps over the lazy dog';
// nova-3 is cipher-max (PocketSphinx's accurate profile): it hears Flite kal16's sentence with at
// most two of the nine words wrong ("jumped" for "jumps" is usual). Silence or noise is ~1.
const FOX_MAX_WER = 0.23;

before(async () => {
  // The operator allowed this one loopback address for URL fetches (as for jobs); 127.0.0.2 stays refused.
  t = await createTestApp({ PARLA_FETCH_ALLOW_HOSTS: '127.0.0.1:*', METRICS_TOKEN: 'operator-token-dg' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  client = new DeepgramClient({ apiKey: key, baseUrl });
  fox = flite('The quick brown fox jumps over the lazy dog.');
  foxBytes = readFileSync(fox);
  audioServer = http.createServer((req, res) => {
    if (req.url === '/fox.wav') {
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(foxBytes.length) });
      res.end(foxBytes);
    } else {
      res.writeHead(404).end('no');
    }
  });
  await new Promise<void>((resolve) => audioServer.listen(0, '127.0.0.1', resolve));
  audioBase = `http://127.0.0.1:${(audioServer.address() as AddressInfo).port}`;
  await t.services.registry.whenReady();
});
after(async () => {
  audioServer.close();
  await t.close();
});

type ListenResponse = Deepgram.ListenV1Response;

function alt(r: ListenResponse) {
  const a = r.results.channels[0]?.alternatives?.[0];
  assert.ok(a, JSON.stringify(r).slice(0, 300));
  return a;
}

/** The SDK's error for a call that must fail: a DeepgramError with the status and Deepgram's body. */
async function sdkError(p: Promise<unknown>, status: number): Promise<{ err: DeepgramError; body: Record<string, any> }> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof DeepgramError, String(err));
    assert.equal(err.statusCode, status, err.message);
    const body = err.body as Record<string, any>;
    assert.equal(typeof body.err_code, 'string');
    assert.equal(typeof body.err_msg, 'string');
    assert.match(body.request_id, /^req_/);
    assert.equal(err.rawResponse?.headers.get('dg-request-id'), body.request_id);
    assert.equal(err.requestId, body.request_id);
    return { err, body };
  }
  assert.fail(`expected HTTP ${status}, got a success`);
}

describe('transcribeFile', () => {
  test("a Buffer with Deepgram's defaults: the plain transcript, metadata and words as Deepgram gives them", async () => {
    const { data, rawResponse } = await client.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }).withRawResponse();
    const r = data as ListenResponse;
    const a = alt(r);
    assert.ok(wordErrorRate(FOX, a.transcript!) <= FOX_MAX_WER, a.transcript);
    // Deepgram's defaults: no punctuation, no capitals, no punctuated_word, no speaker, no utterances.
    assert.equal(a.transcript, a.transcript!.toLowerCase());
    assert.ok(!/[.,?!]/.test(a.transcript!), a.transcript);
    assert.equal(r.results.utterances, undefined);
    assert.equal(a.paragraphs, undefined);
    assert.ok(a.confidence! > 0 && a.confidence! <= 1);
    assert.ok(a.words!.length >= 8);
    for (const w of a.words!) {
      assert.equal(typeof w.word, 'string');
      assert.ok(w.start! >= 0 && w.end! > w.start! && w.end! <= r.metadata.duration + 0.05, JSON.stringify(w));
      assert.ok(w.confidence! >= 0 && w.confidence! <= 1);
      assert.equal((w as { punctuated_word?: string }).punctuated_word, undefined);
      assert.equal(w.speaker, undefined);
    }
    assert.equal(a.words!.map((w) => w.word).join(' '), a.transcript);
    const m = r.metadata;
    assert.equal(m.transaction_key, 'deprecated');
    assert.equal(m.request_id, rawResponse.headers.get('dg-request-id'));
    assert.equal(m.request_id, rawResponse.headers.get('x-request-id'));
    assert.equal(m.sha256, createHash('sha256').update(foxBytes).digest('hex'));
    assert.ok(!Number.isNaN(Date.parse(m.created)));
    assert.ok(m.duration > 2 && m.duration < 4, String(m.duration));
    assert.equal(m.channels, 1);
    assert.equal(m.models.length, 1);
    const info = m.model_info[m.models[0]!] as { name: string; arch: string; version: string };
    assert.match(info.name, /^nova-3 \(cipher-max\)$/);
    assert.equal(info.arch, 'pocketsphinx');
    assert.equal(r.results.channels[0]!.detected_language, undefined);
  });

  test('a stream, with punctuate and smart_format: punctuated_word, a capitalized and punctuated transcript, paragraphs', async () => {
    const r = (await client.listen.v1.media.transcribeFile(createReadStream(fox), {
      model: 'nova-2',
      punctuate: true,
      smart_format: true,
    })) as ListenResponse;
    const a = alt(r);
    assert.ok(wordErrorRate(FOX, a.transcript!) <= FOX_MAX_WER, a.transcript);
    assert.match(a.transcript!, /^[A-Z].*\.$/);
    const words = a.words! as Array<{ word: string; punctuated_word?: string }>;
    assert.ok(words.every((w) => typeof w.punctuated_word === 'string'));
    assert.equal(words.map((w) => w.punctuated_word).join(' '), a.transcript);
    assert.match(words[0]!.punctuated_word!, /^[A-Z]/);
    assert.equal(words[0]!.word, words[0]!.word.toLowerCase());
    // smart_format brings paragraphs, as on Deepgram.
    const para = a.paragraphs!;
    assert.ok(para.paragraphs!.length >= 1);
    assert.equal(
      para.paragraphs!.reduce((n, p) => n + p.num_words!, 0),
      words.length,
    );
    assert.equal(para.transcript!.trim(), a.transcript);
    assert.ok(para.paragraphs![0]!.sentences!.length >= 1);
  });

  test('punctuate alone: punctuation without number formatting; numerals alone: numbers as digits without punctuation', async () => {
    const money = flite('It costs twenty five dollars. What time is it?');
    const punct = alt(
      (await client.listen.v1.media.transcribeFile(readFileSync(money), { model: 'nova-3', punctuate: true })) as ListenResponse,
    );
    assert.match(punct.transcript!, /twenty five dollars/i);
    assert.match(punct.transcript!, /[.?]/);
    const numerals = alt(
      (await client.listen.v1.media.transcribeFile(readFileSync(money), { model: 'nova-3', numerals: true })) as ListenResponse,
    );
    assert.match(numerals.transcript!, /\$25/);
    assert.ok(!/[.?]/.test(numerals.transcript!), numerals.transcript);
  });

  test('diarize and utterances: a speaker on every word, two voices told apart, utterances split at pauses and speaker changes', async () => {
    const dialogue = soxConcat(
      [
        flite('Good morning, how was your weekend?', 'slt'),
        flite('It was great, we went hiking in the mountains.', 'rms'),
        flite('That sounds wonderful. Did you take pictures?', 'slt'),
        flite('Yes, plenty of them, I will show you later.', 'rms'),
      ],
      0.8,
    );
    const r = (await client.listen.v1.media.transcribeFile(readFileSync(dialogue), {
      model: 'nova-3',
      diarize: true,
      utterances: true,
      punctuate: true,
    })) as ListenResponse;
    const words = alt(r).words!;
    assert.ok(words.every((w) => Number.isInteger(w.speaker)));
    assert.equal(new Set(words.map((w) => w.speaker)).size, 2, JSON.stringify(words.map((w) => [w.word, w.speaker])));
    assert.equal(words[0]!.speaker, 0);
    const utterances = r.results.utterances!;
    assert.ok(utterances.length >= 4, String(utterances.length));
    assert.equal(
      utterances.reduce((n, u) => n + u.words!.length, 0),
      words.length,
    );
    const ids = new Set<string>();
    for (const u of utterances) {
      assert.equal(u.channel, 0);
      assert.ok(u.end! > u.start!);
      assert.ok(u.confidence! > 0 && u.confidence! <= 1);
      assert.ok(
        u.words!.every((w) => w.speaker === u.speaker),
        JSON.stringify(u),
      );
      assert.equal(u.transcript, u.words!.map((w) => w.punctuated_word).join(' '));
      assert.match(u.id!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      ids.add(u.id!);
    }
    assert.equal(ids.size, utterances.length);
    // A longer utt_split than any pause here keeps one speaker's run as one utterance.
    const long = (await client.listen.v1.media.transcribeFile(readFileSync(dialogue), {
      model: 'nova-3',
      diarize: true,
      utterances: true,
      utt_split: 5,
    })) as ListenResponse;
    const turns = words.filter((w, i) => i === 0 || w.speaker !== words[i - 1]!.speaker).length;
    assert.equal(long.results.utterances!.length, turns);
  });

  test('language, detect_language, keywords and keyterm; Parla model ids as they are', async () => {
    const en = alt(
      (await client.listen.v1.media.transcribeFile(foxBytes, {
        model: 'nova-3',
        language: 'en-US',
        keywords: ['fox:2', 'dog'],
        keyterm: ['lazy dog'],
      })) as ListenResponse,
    );
    assert.ok(wordErrorRate(FOX, en.transcript!) <= FOX_MAX_WER, en.transcript);
    const detected = (await client.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3', detect_language: true })) as ListenResponse;
    assert.equal(detected.results.channels[0]!.detected_language, 'en');
    const parla = (await client.listen.v1.media.transcribeFile(foxBytes, { model: 'lucid-mono' as never })) as ListenResponse;
    assert.equal((parla.metadata.model_info[parla.metadata.models[0]!] as { name: string }).name, 'lucid-mono');
    // A Deepgram model's variants map by family (docs/compatibility.md).
    const meeting = (await client.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-2-meeting' })) as ListenResponse;
    assert.equal((meeting.metadata.model_info[meeting.metadata.models[0]!] as { name: string }).name, 'nova-2-meeting (cipher-max)');
  });

  test('raw linear16 with encoding and sample_rate is read as PCM', async () => {
    const pcm = foxBytes.subarray(44);
    // The SDK's prerecorded request type has no sample_rate: it goes as an extra query parameter.
    const r = (await client.listen.v1.media.transcribeFile(
      pcm,
      { model: 'nova-3', encoding: 'linear16' },
      { queryParams: { sample_rate: 16000 } },
    )) as ListenResponse;
    assert.ok(wordErrorRate(FOX, alt(r).transcript!) <= FOX_MAX_WER, alt(r).transcript);
    const { body } = await sdkError(client.listen.v1.media.transcribeFile(pcm, { model: 'nova-3', encoding: 'linear16' }), 400);
    assert.equal(body.parla_code, 'INVALID_PARAMETER');
  });

  test("bad parameters: BadRequestError with Deepgram's body and Parla's code", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: 'gpt-4o-transcribe' }, 'INVALID_MODEL'],
      [{ model: 'nova-3', language: 'xx-not-a-language' }, 'INVALID_LANGUAGE'],
      [{ model: 'nova-3', sentiment: true }, 'INVALID_PARAMETER'],
      [{ model: 'nova-3', redact: 'pii' }, 'INVALID_PARAMETER'],
      // A callback the safe fetcher refuses is refused at once (test/compat/deepgram-callback.test.ts).
      [{ model: 'nova-3', callback: 'http://10.1.2.3/hook' }, 'URL_NOT_ALLOWED'],
    ];
    for (const [opts, code] of cases) {
      const { err, body } = await sdkError(client.listen.v1.media.transcribeFile(foxBytes, opts as never), 400).catch((e: Error) =>
        assert.fail(`${JSON.stringify(opts)}: ${e.message}`),
      );
      assert.ok(err instanceof Deepgram.BadRequestError, JSON.stringify(opts));
      assert.equal(body.err_code, 'Bad Request');
      assert.equal(body.parla_code, code, JSON.stringify(opts));
    }
    // Not audio: the decoder's refusal, as natively (422).
    const { body } = await sdkError(
      client.listen.v1.media.transcribeFile(Buffer.from('this is certainly not audio, just text'), { model: 'nova-3' }),
      422,
    );
    assert.equal(body.parla_code, 'INVALID_AUDIO');
  });
});

describe('transcribeUrl', () => {
  test("a URL the operator allowed is fetched and transcribed; its sha256 is the fetched bytes'", async () => {
    const r = (await client.listen.v1.media.transcribeUrl({
      url: `${audioBase}/fox.wav`,
      model: 'nova-3',
      punctuate: true,
    })) as ListenResponse;
    assert.ok(wordErrorRate(FOX, alt(r).transcript!) <= FOX_MAX_WER, alt(r).transcript);
    assert.equal(r.metadata.sha256, createHash('sha256').update(foxBytes).digest('hex'));
  });

  test('a loopback address not allowed, a metadata address, a non-http scheme: 400 URL_NOT_ALLOWED; a 404 there: URL_FETCH_FAILED', async () => {
    const port = new URL(audioBase).port;
    for (const url of [
      `http://127.0.0.2:${port}/fox.wav`,
      'http://169.254.169.254/latest/meta-data/',
      'file:///etc/passwd',
      'http://[::1]/x',
    ]) {
      const { err, body } = await sdkError(client.listen.v1.media.transcribeUrl({ url, model: 'nova-3' }), 400);
      assert.ok(err instanceof Deepgram.BadRequestError);
      assert.equal(body.parla_code, 'URL_NOT_ALLOWED', url);
    }
    const { body } = await sdkError(client.listen.v1.media.transcribeUrl({ url: `${audioBase}/missing.wav`, model: 'nova-3' }), 422);
    assert.equal(body.parla_code, 'URL_FETCH_FAILED');
    assert.match(body.err_msg, /HTTP 404/);
  });
});

describe('billing, usage and errors', () => {
  test('credits: the same as the native endpoint for the same audio and mapped model; usage and metrics count it', async () => {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 100_000 });
    const c = new DeepgramClient({ apiKey: acct.apiKey, baseUrl });
    const { data, rawResponse } = await c.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }).withRawResponse();
    const used = Number(rawResponse.headers.get('x-credits-used'));
    const { body, contentType } = await multipart(foxBytes, { model: 'cipher-max' }, 'audio.wav');
    const native = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': acct.apiKey, 'content-type': contentType },
      payload: body,
    });
    assert.equal(native.statusCode, 200);
    assert.equal(used, Number(native.headers['x-credits-used']));
    assert.equal(used, 2 * Math.ceil((data as ListenResponse).metadata.duration));
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 100_000 - 2 * used);
    assert.equal(Number(native.headers['x-credits-remaining']), 100_000 - 2 * used);
    const usage = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': acct.apiKey } })).json();
    assert.ok(usage.usage.requests_today >= 2, JSON.stringify(usage));
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-dg' } })).body;
    assert.match(metrics, /parla_http_requests_total\{method="POST",route="\/v1\/listen",status="200"\} [1-9]/);
    assert.match(metrics, /parla_credits_debited_total\{model="cipher-max",mode="live"\} [1-9]/);
  });

  test('Bearer works as Token does; a bad key is 401 INVALID_AUTH; no key is 401', async () => {
    const bearer = await fetch(`${baseUrl}/v1/listen?model=nova-3`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'audio/wav' },
      body: foxBytes,
    });
    assert.equal(bearer.status, 200);
    const bad = new DeepgramClient({ apiKey: 'svc_live_not-a-real-key-000000000000', baseUrl });
    const { body } = await sdkError(bad.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }), 401);
    assert.equal(body.err_code, 'INVALID_AUTH');
    assert.equal(body.parla_code, 'AUTH_INVALID_API_KEY');
    const none = await fetch(`${baseUrl}/v1/listen`, { method: 'POST', headers: { 'content-type': 'audio/wav' }, body: foxBytes });
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as any).err_code, 'INVALID_AUTH');
  });

  test('a revoked or disabled key: 401; a disabled STT or diarization feature: 403, nothing billed', async () => {
    for (const state of ['disabled', 'revoked'] as const) {
      const acct = await createTestAccount(t.services, { plan: 'pro', credits: 1000 });
      assert.ok(await t.services.store.setKeyState(acct.keyId, state));
      t.services.authenticator.invalidate();
      const c = new DeepgramClient({ apiKey: acct.apiKey, baseUrl });
      const { body } = await sdkError(c.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }), 401);
      assert.equal(body.err_code, 'INVALID_AUTH');
      assert.equal(body.parla_code, `AUTH_${state.toUpperCase()}_API_KEY`);
    }
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 1000 });
    const c = new DeepgramClient({ apiKey: acct.apiKey, baseUrl });
    await t.services.store.setFeature(acct.accountId, 'diarization', false);
    t.services.authenticator.invalidate();
    const diarize = await sdkError(c.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3', diarize: true }), 403);
    assert.equal(diarize.body.parla_code, 'FEATURE_DISABLED');
    assert.equal(diarize.body.err_code, 'INSUFFICIENT_PERMISSIONS');
    await t.services.store.setFeature(acct.accountId, 'stt', false);
    t.services.authenticator.invalidate();
    const stt = await sdkError(c.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }), 403);
    assert.equal(stt.body.parla_code, 'FEATURE_DISABLED');
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 1000);
  });

  test('no credits: 402 ASR_PAYMENT_REQUIRED', async () => {
    const poor = await createTestAccount(t.services, { plan: 'pro', credits: 0 });
    const c = new DeepgramClient({ apiKey: poor.apiKey, baseUrl });
    const { body } = await sdkError(c.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }), 402);
    assert.equal(body.err_code, 'ASR_PAYMENT_REQUIRED');
    assert.equal(body.parla_code, 'INSUFFICIENT_CREDITS');
  });

  test('rate limit: 429 TOO_MANY_REQUESTS with Retry-After (the plan window, as natively)', async () => {
    const free = await createTestAccount(t.services, { plan: 'free', credits: 100_000 });
    const c = new DeepgramClient({ apiKey: free.apiKey, baseUrl });
    const perMinute = t.services.config.product.plans.free.requestsPerMinute;
    // Cheap requests that pass the window and fail later (a bad parameter) count as requests too.
    for (let i = 0; i < perMinute; i++) {
      const res = await fetch(`${baseUrl}/v1/listen?punctuate=maybe`, {
        method: 'POST',
        headers: { authorization: `Token ${free.apiKey}`, 'content-type': 'audio/wav' },
        body: 'x',
      });
      assert.equal(res.status, 400);
    }
    // The SDK retries 429 after Retry-After by itself (up to a minute here): this call asks it not to, to see the answer.
    const { err, body } = await sdkError(c.listen.v1.media.transcribeFile(foxBytes, { model: 'nova-3' }, { maxRetries: 0 }), 429);
    assert.equal(body.err_code, 'TOO_MANY_REQUESTS');
    assert.equal(body.parla_code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number(err.rawResponse?.headers.get('retry-after')) > 0);
  });

  test('a body over 25 MB: 413 FILE_TOO_LARGE; nothing billed', async () => {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 1000 });
    const c = new DeepgramClient({ apiKey: acct.apiKey, baseUrl });
    const { body } = await sdkError(
      c.listen.v1.media.transcribeFile(Buffer.alloc(25 * 1024 * 1024 + 1), { model: 'nova-3' }, { maxRetries: 0 }),
      413,
    );
    assert.equal(body.parla_code, 'FILE_TOO_LARGE');
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 1000);
  });
});

test('POST /v1/listen is in /openapi.json under the tag deepgram', async () => {
  const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.deepEqual(spec.paths['/v1/listen'].post.tags, ['deepgram']);
});
