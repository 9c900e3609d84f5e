// POST /tts/generate/with-timestamps through HTTP with the real engines: words in order and on the
// audio, for eSpeak's own events and for Flite aligned by PocketSphinx; breaks and speed move them;
// price and errors are those of /tts/generate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { decodeToMono16k } from '../../src/audio/decode.js';

let t: TestApp;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
});
after(() => t.close());

interface Timed {
  success: true;
  audio_base64: string;
  format: string;
  sample_rate: number;
  duration: number;
  credits_used: number;
  words: Array<{ word: string; start: number; end: number }>;
}

const post = (url: string, payload: Record<string, unknown>, apiKey = key) =>
  t.app.inject({ method: 'POST', url, headers: { 'x-api-key': apiKey }, payload });
const timed = (payload: Record<string, unknown>, apiKey = key) => post('/api/v1/tts/generate/with-timestamps', payload, apiKey);
const generate = (payload: Record<string, unknown>, apiKey = key) => post('/api/v1/tts/generate', payload, apiKey);

async function ok(payload: Record<string, unknown>): Promise<Timed> {
  const res = await timed(payload);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return res.json() as Timed;
}

/** The checks every answer must pass: words in order, each inside the audio, the audio as long as it says. */
async function checkShape(body: Timed, expectedWords: string[], durationTolerance = 0.06) {
  assert.deepEqual(
    body.words.map((w) => w.word),
    expectedWords,
  );
  let prevEnd = 0;
  for (const w of body.words) {
    assert.ok(w.start >= prevEnd, `${w.word} starts at ${w.start}, before the previous word ended (${prevEnd})`);
    assert.ok(w.end > w.start, `${w.word}: ${w.start}-${w.end}`);
    prevEnd = w.end;
  }
  assert.ok(prevEnd <= body.duration, `the last word ends (${prevEnd}) within the audio (${body.duration})`);
  const pcm = await decodeToMono16k(new Uint8Array(Buffer.from(body.audio_base64, 'base64')), { allowFfmpeg: false });
  assert.ok(Math.abs(pcm.length / 16000 - body.duration) < durationTolerance, `decoded ${pcm.length / 16000} s, said ${body.duration} s`);
  // The words cover the speech: the last one ends near the end of the audio, not half-way.
  assert.ok(prevEnd > body.duration * 0.7, `the last word ends at ${prevEnd} of ${body.duration} s`);
}

const SENTENCE = 'He opened the window, and listened to the rain for 20 minutes.';
const SENTENCE_WORDS = ['He', 'opened', 'the', 'window', 'and', 'listened', 'to', 'the', 'rain', 'for', '20', 'minutes'];

describe('one engine path each', () => {
  test('Flite (aura-prime): the known text force-aligned to the audio, headers as /tts/generate', async () => {
    const res = await timed({ text: SENTENCE, voice: 'Aria' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['x-request-id']), /^req_/);
    assert.ok(Number(res.headers['x-processing-time-ms']) >= 0);
    assert.equal(res.headers['x-credits-used'], String([...SENTENCE].length));
    assert.ok(Number(res.headers['x-credits-remaining']) > 0);
    const body = res.json() as Timed;
    assert.equal(body.success, true);
    assert.equal(body.format, 'wav');
    assert.equal(body.sample_rate, 16000);
    assert.equal(body.credits_used, [...SENTENCE].length);
    await checkShape(body, SENTENCE_WORDS);
  });

  test('Flite kal16 (aura-lite English): aligned like any Flite voice, 16 kHz', async () => {
    const body = await ok({ text: SENTENCE, voice: 'Aria', model: 'aura-lite' });
    assert.equal(body.sample_rate, 16000);
    await checkShape(body, SENTENCE_WORDS);
  });

  test("eSpeak in German (aura-lite): the engine's own word events, words as written, umlauts included", async () => {
    const body = await ok({ text: 'Grüße aus München, sagte sie.', voice: 'Anna', model: 'aura-lite', language: 'de-DE' });
    assert.equal(body.sample_rate, 22050);
    await checkShape(body, ['Grüße', 'aus', 'München', 'sagte', 'sie']);
  });

  test("eSpeak through the studio finishing (aura-max, German): eSpeak's word events on the 48 kHz file", async () => {
    // German cannot be aligned here: these words can only be the inner engine's own events.
    const body = await ok({ text: 'Grüße aus München, sagte sie.', voice: 'Anna', model: 'aura-max', language: 'de-DE' });
    assert.equal(body.sample_rate, 48000);
    await checkShape(body, ['Grüße', 'aus', 'München', 'sagte', 'sie']);
  });

  test('Festival through the studio finishing (aura-max, a female English voice): aligned, 48 kHz', async () => {
    const body = await ok({ text: SENTENCE, voice: 'Aria', model: 'aura-max' });
    assert.equal(body.sample_rate, 48000);
    await checkShape(body, SENTENCE_WORDS);
  });

  test('Japanese: the words are the kanji as written, timed on their readings', async () => {
    const body = await ok({ text: '会議は九時に始まります。', voice: 'Yui', model: 'aura-lite', language: 'ja' });
    assert.equal(body.words.map((w) => w.word).join(''), '会議は九時に始まります');
    assert.ok(body.words.length >= 4, JSON.stringify(body.words));
    await checkShape(
      body,
      body.words.map((w) => w.word),
    );
  });
});

describe('Korean', () => {
  test('hanja are read as hangul, and the words keep their hanja as written', async () => {
    const body = await ok({ text: '學校에 갑니다. 오늘은 날씨가 좋습니다.', voice: 'Yuna', model: 'aura-lite', language: 'ko' });
    await checkShape(body, ['學校에', '갑니다', '오늘은', '날씨가', '좋습니다']);
  });
});

describe('markup and speed move the words', () => {
  test('a break shifts every later word by its length; a vocalization adds no word', async () => {
    const short = await ok({ text: 'One two three. <break time="500ms"/> Four five <laugh> six.', voice: 'Aria' });
    const long = await ok({ text: 'One two three. <break time="2.5s"/> Four five <laugh> six.', voice: 'Aria' });
    const words = ['One', 'two', 'three', 'Four', 'five', 'six'];
    await checkShape(short, words);
    await checkShape(long, words);
    for (let i = 0; i < 3; i++) assert.ok(Math.abs(long.words[i]!.start - short.words[i]!.start) < 0.02, 'before the break: unchanged');
    for (let i = 3; i < 6; i++) {
      const shift = long.words[i]!.start - short.words[i]!.start;
      assert.ok(Math.abs(shift - 2) < 0.05, `${words[i]} moved by ${shift} s, the break by 2 s`);
    }
    // "Four" starts after the break: at least its length after "three" ended.
    assert.ok(long.words[3]!.start - long.words[2]!.end >= 2.4, JSON.stringify(long.words));
  });

  test('a break with eSpeak: the same shift', async () => {
    const short = await ok({ text: 'One two. <break time="500ms"/> Three four.', voice: 'Aria', model: 'aura-lite' });
    const long = await ok({ text: 'One two. <break time="2.5s"/> Three four.', voice: 'Aria', model: 'aura-lite' });
    for (let i = 2; i < 4; i++) {
      const shift = long.words[i]!.start - short.words[i]!.start;
      assert.ok(Math.abs(shift - 2) < 0.05, `moved by ${shift} s`);
    }
  });

  for (const model of ['aura-prime', 'aura-lite']) {
    test(`speed 2 roughly halves the times (${model})`, async () => {
      const normal = await ok({ text: SENTENCE, voice: 'Aria', model });
      const fast = await ok({ text: SENTENCE, voice: 'Aria', model, speed: 2 });
      await checkShape(fast, SENTENCE_WORDS);
      const ratio = fast.words.at(-1)!.end / normal.words.at(-1)!.end;
      assert.ok(ratio > 0.35 && ratio < 0.7, `the last word ends at ${ratio.toFixed(2)} of its time at speed 1`);
      const mid = fast.words[5]!.start / normal.words[5]!.start;
      assert.ok(mid > 0.3 && mid < 0.75, `"listened" starts at ${mid.toFixed(2)} of its time at speed 1`);
    });
  }

  test('mp3: the same words, and the file is an mp3 of that duration', async () => {
    const body = await ok({ text: SENTENCE, voice: 'Aria', format: 'mp3' });
    assert.equal(body.format, 'mp3');
    const bytes = Buffer.from(body.audio_base64, 'base64');
    assert.ok(bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0), 'an MP3 stream');
    // An MP3 decoder may keep the encoder's padding (as /tts/generate's tests allow).
    await checkShape(body, SENTENCE_WORDS, 0.15);
  });
});

describe('the OpenAPI document', () => {
  test('describes the endpoint: the body of /tts/generate, the timed answer, the error bodies', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, any>> };
    const op = doc.paths['/api/v1/tts/generate/with-timestamps']?.post;
    assert.ok(op, 'the path is documented');
    const gen = doc.paths['/api/v1/tts/generate']!.post;
    assert.deepEqual(op.requestBody, gen.requestBody);
    const ok = op.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(ok.properties).sort(), [
      'audio_base64',
      'credits_used',
      'duration',
      'format',
      'sample_rate',
      'success',
      'words',
    ]);
    assert.deepEqual(Object.keys(ok.properties.words.items.properties).sort(), ['end', 'start', 'word']);
    for (const status of ['400', '401', '402', '403', '413', '429', '500', '503']) assert.ok(op.responses[status], `${status} documented`);
  });
});

describe('price and errors are those of /tts/generate', () => {
  test('the same credits are charged for the same request', async () => {
    const payload = { text: 'Hi <break time="300ms"/> there <laugh>!', voice: 'Aria', model: 'aura-max' };
    const b0 = await t.services.store.getBalance(accountId, 'live');
    const g = await generate(payload);
    const b1 = await t.services.store.getBalance(accountId, 'live');
    const w = await timed(payload);
    const b2 = await t.services.store.getBalance(accountId, 'live');
    assert.equal(w.statusCode, 200, w.body);
    assert.equal(w.headers['x-credits-used'], g.headers['x-credits-used']);
    assert.equal((w.json() as Timed).credits_used, Number(g.headers['x-credits-used']));
    assert.equal(b0 - b1, b1 - b2);
    assert.equal(w.headers['x-credits-remaining'], String(b2));
  });

  const strip = (body: { error: Record<string, unknown> }) => body.error;
  const cases: Array<[string, Record<string, unknown>]> = [
    ['INVALID_VOICE', { text: 'Hello', voice: 'Nobody' }],
    ['INVALID_SPEED (schema)', { text: 'Hello', voice: 'Aria', speed: 3 }],
    ['INVALID_FORMAT (schema)', { text: 'Hello', voice: 'Aria', format: 'aac' }],
    ['MISSING_TEXT', { text: '   ', voice: 'Aria' }],
    ['INVALID_MARKUP', { text: 'Hello <whisper>there', voice: 'Aria' }],
    ['EXPRESSION_NOT_SUPPORTED', { text: 'Hello <break time="1s"/> there', voice: 'Aria', model: 'rapid-max' }],
    ['INVALID_LANGUAGE', { text: 'Hello', voice: 'Aria', language: 'xx-XX' }],
  ];
  for (const [name, payload] of cases) {
    test(`${name}: the same status and error body`, async () => {
      const g = await generate(payload);
      const w = await timed(payload);
      assert.ok(g.statusCode >= 400, g.body);
      assert.equal(w.statusCode, g.statusCode, w.body);
      assert.deepEqual(strip(w.json()), strip(g.json()));
    });
  }

  test('402 INSUFFICIENT_CREDITS, and a refused request costs nothing', async () => {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 10 });
    const payload = { text: 'This text is longer than ten characters.', voice: 'Aria' };
    const g = await generate(payload, acct.apiKey);
    const w = await timed(payload, acct.apiKey);
    assert.equal(w.statusCode, 402, w.body);
    assert.deepEqual(strip(w.json()), strip(g.json()));
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 10);
  });

  test('MODEL_ACCESS_DENIED on a plan without the model', async () => {
    const acct = await createTestAccount(t.services, { plan: 'free', credits: 1000 });
    const payload = { text: 'Hello', voice: 'Aria', model: 'aura-max' };
    const w = await timed(payload, acct.apiKey);
    assert.equal(w.statusCode, 403, w.body);
    assert.deepEqual(strip(w.json()), strip((await generate(payload, acct.apiKey)).json()));
  });
});
