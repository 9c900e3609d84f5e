// The three batch endpoints on the real recognizer and real audio: formats, fields, errors,
// credits, word timings, keyword boosting, diarization and every input format.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { ffmpegConvert, flite, librivox, soxConcat, wordErrorRate, words } from '../helpers/speech.js';

let t: TestApp;
let key: string;
let accountId: string;
const sentence = () => flite('The quick brown fox jumps over the lazy dog.');
let fox: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 1_000_000 }));
  fox = sentence();
  await t.services.registry.whenReady();
});
after(() => t.close());

async function post(
  url: string,
  file: string | Uint8Array | null,
  fields: Record<string, string | string[]> = {},
  apiKey = key,
  filename = 'audio.wav',
) {
  const bytes = typeof file === 'string' ? readFileSync(file) : file;
  const { body, contentType } = await multipart(bytes, fields, filename);
  return t.app.inject({ method: 'POST', url, headers: { 'x-api-key': apiKey, 'content-type': contentType }, payload: body });
}
function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.statusCode === status ? '' : JSON.stringify(res.json()));
  assert.equal(res.json().error.code, code);
  return res.json().error;
}

describe('endpoints and formats', () => {
  test('json: the transcription result fields, credits per started second', async () => {
    const res = await post('/api/v1/stt/transcribe', fox);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    assert.ok(wordErrorRate('the quick brown fox jumps over the lazy dog', body.text) <= 0.12, body.text);
    assert.match(body.text, /^The .*\.$/);
    assert.equal(body.language, 'en');
    assert.equal(body.model, 'cipher-fast');
    assert.equal(body.provider, 'cipher');
    assert.equal(body.engine, 'pocketsphinx', 'the engine that served it');
    assert.ok(body.duration > 1.5 && body.duration < 4);
    assert.equal(body.credits_used, 2 * Math.ceil(body.duration));
    assert.equal(res.headers['x-credits-used'], String(body.credits_used));
    assert.equal(Number(res.headers['x-credits-remaining']), await t.services.store.getBalance(accountId, 'live'));
    assert.equal(body.words, undefined);
  });

  test('a short silence: empty transcript in every format, the minimum of one second billed', async () => {
    const silence = soxConcat([flite('a'), flite('a')], 0.1);
    const quiet = ffmpegConvert(silence, 'wav', ['-af', 'volume=0', '-t', '0.4']);
    const json = (await post('/api/v1/stt/lucid/transcribe', quiet, { model: 'lucid-lite' })).json();
    assert.equal(json.text, '');
    assert.ok(json.duration > 0 && json.duration <= 0.4);
    assert.equal(json.credits_used, 3);
    assert.equal((await post('/api/v1/stt/transcribe', quiet, { response_format: 'srt' })).body, '');
    assert.equal((await post('/api/v1/stt/transcribe', quiet, { response_format: 'vtt' })).body, 'WEBVTT\n\n');
    assert.deepEqual(
      (await post('/api/v1/stt/transcribe', quiet, { response_format: 'verbose_json', timestamp_granularities: 'word' })).json().segments,
      [],
    );
  });

  test('text, srt and vtt with their content types', async () => {
    const text = await post('/api/v1/stt/cipher/transcribe', fox, { response_format: 'text' });
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(text.body, /quick brown fox/i);
    const srt = await post('/api/v1/stt/cipher/transcribe', fox, { response_format: 'srt' });
    assert.equal(srt.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(srt.body, /^1\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\n.*fox/s);
    const vtt = await post('/api/v1/stt/transcribe', fox, { response_format: 'vtt' });
    assert.equal(vtt.headers['content-type'], 'text/vtt; charset=utf-8');
    assert.match(vtt.body, /^WEBVTT\n\n\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\n/);
  });

  test('verbose_json: segments per utterance, words with word granularity', async () => {
    const two = soxConcat([flite('Good morning everyone.'), flite('Let us begin the meeting.')], 1.2);
    const res = await post('/api/v1/stt/cipher/transcribe', two, { response_format: 'verbose_json', timestamp_granularities: 'word' });
    const body = res.json();
    assert.equal(body.task, 'transcribe');
    assert.equal(body.engine, 'pocketsphinx');
    assert.equal(body.segments.length, 2, JSON.stringify(body.segments));
    for (const s of body.segments) for (const f of ['id', 'start', 'end', 'text', 'avg_confidence']) assert.ok(f in s, f);
    assert.ok(body.segments[1].start > body.segments[0].end);
    assert.ok(body.words.length >= 7);
    for (const w of body.words) {
      assert.ok(w.end > w.start && w.start >= 0 && w.end <= body.duration + 0.01);
      assert.ok(w.confidence >= 0 && w.confidence <= 1);
    }
    const seg = (
      await post('/api/v1/stt/cipher/transcribe', fox, { response_format: 'verbose_json', timestamp_granularities: 'segment' })
    ).json();
    assert.ok(seg.segments.length >= 1);
    assert.equal(seg.words, undefined);
    assert.ok((await post('/api/v1/stt/cipher/transcribe', fox, { response_format: 'verbose_json' })).json().segments.length >= 1);
    expectError(await post('/api/v1/stt/cipher/transcribe', fox, { timestamp_granularities: 'word' }), 400, 'INVALID_PARAMETER');
    // The OpenAI form: repeated `timestamp_granularities[]` parts.
    const both = (
      await post('/api/v1/stt/transcribe', fox, { response_format: 'verbose_json', 'timestamp_granularities[]': ['word', 'segment'] })
    ).json();
    assert.ok(both.words.length >= 7 && both.segments.length >= 1, JSON.stringify(both));
    expectError(await post('/api/v1/stt/transcribe', fox, { 'timestamp_granularities[]': ['word', 'segment'] }), 400, 'INVALID_PARAMETER');
  });

  test('word timings bracket the words: a word said after a pause starts after it', async () => {
    const file = soxConcat([flite('hello'), flite('world')], 1.5);
    const body = (
      await post('/api/v1/stt/transcribe', file, {
        response_format: 'verbose_json',
        timestamp_granularities: 'word',
        smart_format: 'false',
        punctuate: 'false',
      })
    ).json();
    const hello = body.words.find((w: any) => w.word === 'hello');
    const world = body.words.find((w: any) => w.word === 'world');
    assert.ok(hello && world, JSON.stringify(body.words));
    assert.ok(hello.end < 1.2, `hello ends at ${hello.end}`);
    assert.ok(world.start > hello.end + 1.2, `world starts at ${world.start}`);
  });

  test('Lucid: smart format and punctuation by default, off on request', async () => {
    const file = flite('It costs twenty five dollars. What time is it?');
    const on = (await post('/api/v1/stt/lucid/transcribe', file, { model: 'lucid-mono' })).json();
    assert.equal(on.provider, 'lucid');
    assert.equal(on.credits_used, 3 * Math.ceil(on.duration));
    assert.match(on.text, /\$25/);
    const off = (
      await post('/api/v1/stt/lucid/transcribe', file, { model: 'lucid-mono', smart_format: 'false', punctuate: 'false' })
    ).json();
    assert.match(off.text, /twenty five dollars/);
    assert.ok(!/[.?]/.test(off.text));
  });
});

describe('validation and errors', () => {
  test('models are routed per endpoint', async () => {
    const wrong = expectError(await post('/api/v1/stt/cipher/transcribe', fox, { model: 'lucid-mono' }), 400, 'INVALID_MODEL');
    assert.match(wrong.message, /\/api\/v1\/stt\/lucid\/transcribe/);
    expectError(await post('/api/v1/stt/lucid/transcribe', fox, { model: 'cipher-max' }), 400, 'INVALID_MODEL');
    expectError(await post('/api/v1/stt/transcribe', fox, { model: 'whisper-9' }), 400, 'INVALID_MODEL');
    assert.equal((await post('/api/v1/stt/transcribe', fox, { model: 'lucid-lite', language: 'en' })).statusCode, 200);
    // Engine endpoints ignore the other engine's fields.
    assert.equal((await post('/api/v1/stt/cipher/transcribe', fox, { diarize: 'maybe' })).statusCode, 200);
    expectError(await post('/api/v1/stt/transcribe', fox, { diarize: 'maybe' }), 400, 'INVALID_PARAMETER');
    expectError(await post('/api/v1/stt/transcribe', fox, { response_format: 'docx' }), 400, 'INVALID_FORMAT');
  });

  test('the Lucid endpoint: lucid-mono when no model is sent, and response_format like every batch endpoint', async () => {
    const plain = await post('/api/v1/stt/lucid/transcribe', fox);
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal(plain.json().model, 'lucid-mono');
    assert.equal(plain.json().provider, 'lucid');
    const srt = await post('/api/v1/stt/lucid/transcribe', fox, { response_format: 'srt' });
    assert.equal(srt.statusCode, 200, srt.body);
    assert.match(String(srt.headers['content-type']), /^text\/plain/);
    assert.match(srt.body, /^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n.*fox/i);
    const text = await post('/api/v1/stt/lucid/transcribe', fox, { response_format: 'text', model: 'lucid-lite' });
    assert.match(String(text.headers['content-type']), /^text\/plain/);
    assert.match(text.body, /^[^{].*fox.*\n$/i);
    const verbose = (await post('/api/v1/stt/lucid/transcribe', fox, { response_format: 'verbose_json', diarize: 'true' })).json();
    assert.equal(verbose.task, 'transcribe');
    assert.ok(verbose.segments.length >= 1 && verbose.segments.every((seg: any) => seg.speaker === 0));
    expectError(await post('/api/v1/stt/lucid/transcribe', fox, { response_format: 'docx' }), 400, 'INVALID_FORMAT');
    // The Cipher-only fields stay ignored there.
    assert.equal((await post('/api/v1/stt/lucid/transcribe', fox, { timestamp_granularities: 'sometimes' })).statusCode, 200);
  });

  test('languages: detected when absent; not served is LANGUAGE_NOT_SUPPORTED; nonsense is INVALID_LANGUAGE', async () => {
    assert.equal((await post('/api/v1/stt/transcribe', fox)).json().language, 'en');
    assert.equal((await post('/api/v1/stt/transcribe', fox, { language: 'en-US' })).json().language, 'en-US');
    expectError(await post('/api/v1/stt/transcribe', fox, { language: 'de' }), 400, 'LANGUAGE_NOT_SUPPORTED');
    expectError(await post('/api/v1/stt/transcribe', fox, { language: 'qq-ZZ' }), 400, 'INVALID_LANGUAGE');
  });

  test('missing file, undecodable audio, too large; failed requests cost nothing', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    expectError(await post('/api/v1/stt/transcribe', null, { model: 'cipher-fast' }), 400, 'MISSING_FILE');
    const bad = expectError(
      await post('/api/v1/stt/transcribe', new TextEncoder().encode('this is not audio at all, just text'.repeat(10))),
      422,
      'INVALID_AUDIO',
    );
    assert.equal(bad.category, 'validation');
    assert.equal(bad.message.split('could not be decoded').length, 2, `said once: ${bad.message}`);
    expectError(await post('/api/v1/stt/transcribe', new Uint8Array(26 * 1024 * 1024)), 413, 'FILE_TOO_LARGE');
    // Just over the limit: refused while streaming, by the part's size cap.
    expectError(await post('/api/v1/stt/transcribe', new Uint8Array(25 * 1024 * 1024 + 200 * 1024)), 413, 'FILE_TOO_LARGE');
    const notMultipart = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(notMultipart.statusCode, 400);
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
  });

  test('feature switches stt and diarization', async () => {
    const acct = await createTestAccount(t.services);
    await t.services.store.setFeature(acct.accountId, 'diarization', false);
    t.services.authenticator.invalidate();
    expectError(
      await post('/api/v1/stt/lucid/transcribe', fox, { model: 'lucid-mono', diarize: 'true' }, acct.apiKey),
      403,
      'FEATURE_DISABLED',
    );
    assert.equal((await post('/api/v1/stt/lucid/transcribe', fox, { model: 'lucid-mono' }, acct.apiKey)).statusCode, 200);
    await t.services.store.setFeature(acct.accountId, 'stt', false);
    t.services.authenticator.invalidate();
    expectError(await post('/api/v1/stt/transcribe', fox, {}, acct.apiKey), 403, 'FEATURE_DISABLED');
  });
});

describe('recognition', () => {
  test("the LibriVox recordings: word error rate within the engine's known range", async () => {
    let errors = 0;
    let total = 0;
    for (const { file, reference } of librivox()) {
      const body = (await post('/api/v1/stt/transcribe', file, { model: 'cipher-max', smart_format: 'false' })).json();
      errors += wordErrorRate(reference, body.text) * words(reference).length;
      total += words(reference).length;
    }
    assert.ok(errors / total < 0.45, `WER ${((100 * errors) / total).toFixed(1)}%`);
  });

  test('prompt (Cipher) and keywords (Lucid) turn a missed domain word into a hit, for that request only', async () => {
    const file = flite('Deploy the web service on Kubernetes today.', 'rms');
    const plain = (await post('/api/v1/stt/transcribe', file)).json().text;
    assert.ok(!/kubernetes/i.test(plain), `plain: ${plain}`);
    const prompted = (await post('/api/v1/stt/cipher/transcribe', file, { prompt: 'We run everything on Kubernetes clusters.' })).json()
      .text;
    assert.match(prompted, /kubernetes/i);
    const boosted = (await post('/api/v1/stt/lucid/transcribe', file, { model: 'lucid-lite', keywords: 'Kubernetes' })).json().text;
    assert.match(boosted, /kubernetes/i);
    const after = (await post('/api/v1/stt/transcribe', file)).json().text;
    assert.ok(!/kubernetes/i.test(after), `no boost leaks into a later request: ${after}`);
  });

  test('diarization separates two voices and keeps one voice as one speaker', async () => {
    const dialogue = soxConcat(
      [
        flite('Good morning, how was your weekend?', 'slt'),
        flite('It was great, we went hiking in the mountains.', 'rms'),
        flite('That sounds wonderful. Did you take pictures?', 'slt'),
        flite('Yes, plenty of them, I will show you later.', 'rms'),
      ],
      0.8,
    );
    const body = (await post('/api/v1/stt/lucid/transcribe', dialogue, { model: 'lucid-multi', diarize: 'true' })).json();
    assert.ok(body.words.every((w: any) => Number.isInteger(w.speaker)));
    assert.ok(
      new Set(body.words.map((w: any) => w.speaker)).size === 2,
      JSON.stringify(body.words.map((w: any) => [w.word, w.start, w.speaker])),
    );
    assert.equal(body.words[0].speaker, 0);
    const single = (
      await post(
        '/api/v1/stt/lucid/transcribe',
        soxConcat([flite('One voice speaks here.', 'slt'), flite('And the same voice goes on.', 'slt')], 0.8),
        { model: 'lucid-multi', diarize: 'true' },
      )
    ).json();
    assert.equal(new Set(single.words.map((w: any) => w.speaker)).size, 1);
  });

  test('every input format decodes to the same transcript', async () => {
    const src = flite('Please call me back tomorrow morning.');
    const reference = (await post('/api/v1/stt/transcribe', src)).json().text;
    const variants: Array<[string, string[]]> = [
      ['mp3', []],
      ['flac', []],
      ['ogg', ['-c:a', 'libvorbis']],
      ['opus', ['-c:a', 'libopus']],
      ['webm', ['-c:a', 'libopus']],
      ['m4a', ['-c:a', 'aac']],
      ['wav', ['-ar', '44100', '-ac', '2', '-c:a', 'pcm_s24le']],
    ];
    for (const [ext, args] of variants) {
      const res = await post('/api/v1/stt/transcribe', ffmpegConvert(src, ext, args), {}, key, `audio.${ext}`);
      assert.equal(res.statusCode, 200, `${ext}: ${res.body}`);
      assert.ok(wordErrorRate(reference, res.json().text) <= 0.2, `${ext}: "${res.json().text}" vs "${reference}"`);
    }
  });
});
