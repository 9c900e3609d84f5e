// OpenAI's current transcription contract through the official `openai` package (unchanged but for
// baseURL and apiKey): languages[] and the detected languages in the answer, keywords[],
// include=logprobs (the recognizer's word posteriors), diarized_json with letters, chunking_strategy
// (auto, server_vad as the SDK sends an object), stream=true on a long recording sending deltas as
// its pieces are recognized, and each new field's refusals as the SDK surfaces them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { flite, soxConcat, wordErrorRate } from '../helpers/speech.js';

let t: TestApp;
let client: OpenAI;
let key: string;
let accountId: string;
let fox: string;
const FOX = 'the quick brown fox jumps over the lazy dog';

before(async () => {
  // Pieces of 5 s: a 20-second recording is cut into several.
  t = await createTestApp({ PARLA_STT_PIECE_SECONDS: '5', PARLA_STT_DECODERS: '2' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const baseURL = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  client = new OpenAI({ apiKey: key, baseURL, maxRetries: 0 });
  fox = flite('The quick brown fox jumps over the lazy dog.');
  await t.services.registry.whenReady();
});
after(() => t.close());

const badRequest = (param: string) => (err: unknown) => {
  assert.ok(err instanceof OpenAI.BadRequestError, String(err));
  assert.equal((err.error as { param?: string }).param, param, JSON.stringify(err.error));
  return true;
};

describe('the gpt-transcribe fields', () => {
  test('languages[] and keywords[]: honoured, the detected language answered', async () => {
    const r = await client.audio.transcriptions.create({
      file: createReadStream(fox),
      model: 'whisper-1',
      languages: ['en'],
      keywords: ['lazy dog', 'brown fox'],
    });
    assert.ok(wordErrorRate(FOX, r.text) <= 0.34, r.text);
    assert.deepEqual(r.languages, [{ code: 'en' }]);
    // Without languages[] the answer is the classic json.
    const plain = await client.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1' });
    assert.equal(plain.languages, undefined);
  });

  test('keywords boost the recognizer: a word it misses plain is heard when named', async () => {
    // "Zyrtec" is not in the dictionary: only the keyword's pronunciation can bring it in.
    const audio = flite('Please buy some Zyrtec at the pharmacy.');
    const plain = await client.audio.transcriptions.create({ file: createReadStream(audio), model: 'whisper-1' });
    const boosted = await client.audio.transcriptions.create({ file: createReadStream(audio), model: 'whisper-1', keywords: ['Zyrtec'] });
    assert.doesNotMatch(plain.text, /zyrtec/i);
    assert.match(boosted.text, /zyrtec/i, boosted.text);
  });

  test("include=logprobs: one entry per word with the recognizer's log-probability", async () => {
    const r = await client.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1', include: ['logprobs'] });
    assert.ok(r.logprobs && r.logprobs.length === r.text.split(/\s+/).length, JSON.stringify(r.logprobs));
    assert.equal(r.logprobs.map((l) => l.token).join(''), r.text);
    for (const l of r.logprobs) {
      assert.ok(typeof l.logprob === 'number' && l.logprob <= 0 && l.logprob >= Math.log(1e-4), JSON.stringify(l));
      assert.deepEqual(Buffer.from(l.bytes!).toString('utf8'), l.token);
    }
    // Not every word is certain: these are scores, not a constant.
    assert.ok(new Set(r.logprobs.map((l) => l.logprob)).size > 1, JSON.stringify(r.logprobs));
  });

  test('diarized_json: segments of type transcript.text.segment, speakers A and B', async () => {
    const dialogue = soxConcat(
      [
        flite('Good morning, how was your weekend?', 'slt'),
        flite('It was great, we went hiking in the mountains.', 'rms'),
        flite('That sounds wonderful. Did you take pictures?', 'slt'),
        flite('Yes, plenty of them, I will show you later.', 'rms'),
      ],
      0.8,
    );
    const r = (await client.audio.transcriptions.create({
      file: createReadStream(dialogue),
      model: 'gpt-4o-transcribe',
      response_format: 'diarized_json',
    })) as unknown as OpenAI.Audio.TranscriptionDiarized;
    assert.equal(r.task, 'transcribe');
    assert.ok(r.segments.length >= 2);
    for (const s of r.segments) {
      assert.equal(s.type, 'transcript.text.segment');
      assert.match(s.speaker, /^[A-Z]$/);
      assert.ok(s.end >= s.start && typeof s.id === 'string');
    }
    assert.equal(r.segments[0]!.speaker, 'A');
    assert.deepEqual([...new Set(r.segments.map((s) => s.speaker))].sort(), ['A', 'B'], JSON.stringify(r.segments));
  });

  test('chunking_strategy: auto and server_vad (an object, as the SDK sends it) cut a long recording and keep its words', async () => {
    const long = soxConcat(
      Array.from({ length: 5 }, () => fox),
      1.0,
    );
    const reference = Array(5).fill(FOX).join(' ');
    for (const chunking_strategy of [
      'auto',
      { type: 'server_vad', threshold: 0.5, silence_duration_ms: 300, prefix_padding_ms: 300 },
    ] as const) {
      const r = await client.audio.transcriptions.create({ file: createReadStream(long), model: 'whisper-1', chunking_strategy });
      assert.ok(wordErrorRate(reference, r.text) <= 0.34, `${JSON.stringify(chunking_strategy)}: ${r.text}`);
    }
  });

  test('stream=true on a long recording: deltas arrive piece by piece before the done event', async () => {
    const long = soxConcat(
      Array.from({ length: 5 }, () => fox),
      1.0,
    );
    const stream = await client.audio.transcriptions.create({
      file: createReadStream(long),
      model: 'gpt-4o-mini-transcribe',
      stream: true,
    });
    const deltas: string[] = [];
    let done: OpenAI.Audio.TranscriptionTextDoneEvent | undefined;
    for await (const ev of stream) {
      if (ev.type === 'transcript.text.delta') {
        assert.equal(done, undefined);
        deltas.push(ev.delta);
      } else if (ev.type === 'transcript.text.done') done = ev;
    }
    assert.ok(done);
    assert.ok(deltas.length >= 2, `one delta per piece, got ${deltas.length}: ${JSON.stringify(deltas)}`);
    assert.ok(wordErrorRate(done.text, deltas.join('')) <= 0.1, `${deltas.join('')} / ${done.text}`);
    assert.equal(done.usage?.type, 'duration');
  });

  test('stream=true on a recording of over a minute: the first delta comes well before the done event, and the deltas spread over the run', async (ctx) => {
    const sentences = [
      'The quick brown fox jumps over the lazy dog.',
      'She sells sea shells by the sea shore.',
      'Please call Stella and ask her to bring these things with her from the store.',
      'The weather today is sunny with a light breeze from the west.',
    ];
    const clips = sentences.map((s) => flite(s));
    const long = soxConcat(
      Array.from({ length: 20 }, (_, i) => clips[i % clips.length]!),
      1.0,
    );
    const started = performance.now();
    const stream = await client.audio.transcriptions.create({
      file: createReadStream(long),
      model: 'gpt-4o-mini-transcribe',
      stream: true,
    });
    const deltaTimes: number[] = [];
    let doneAt = 0;
    let done: OpenAI.Audio.TranscriptionTextDoneEvent | undefined;
    const deltas: string[] = [];
    for await (const ev of stream) {
      if (ev.type === 'transcript.text.delta') {
        deltaTimes.push(performance.now() - started);
        deltas.push(ev.delta);
      } else if (ev.type === 'transcript.text.done') {
        doneAt = performance.now() - started;
        done = ev;
      }
    }
    assert.ok(done);
    // Parla reports duration usage here (the SDK types only OpenAI's token usage for this event).
    const seconds = (done.usage as unknown as { seconds?: number } | undefined)?.seconds ?? 0;
    assert.ok(seconds >= 60 && seconds <= 120, `${seconds} s of audio`);
    const first = deltaTimes[0]!;
    ctx.diagnostic(
      `audio ${seconds} s: first delta at ${first.toFixed(0)} ms, done at ${doneAt.toFixed(0)} ms, ${deltaTimes.length} deltas`,
    );
    // Pieces are told as they finish: the first long before the last, the rest spread between.
    assert.ok(deltaTimes.length >= 3, `${deltaTimes.length} deltas`);
    assert.ok(first < doneAt / 2, `first delta at ${first.toFixed(0)} ms, done at ${doneAt.toFixed(0)} ms`);
    const middle = deltaTimes.filter((x) => x > first && x < doneAt - (doneAt - first) / 4);
    assert.ok(middle.length >= 1, `deltas ${deltaTimes.map((x) => x.toFixed(0)).join(' ')}, done ${doneAt.toFixed(0)}`);
    assert.ok(wordErrorRate(done.text, deltas.join('')) <= 0.1);
  });
});

describe('stream=true and a client that leaves (decision #49)', () => {
  test('the client aborts after the first delta: the audio whose text went out is billed, once, not the rest', async () => {
    const long = soxConcat(
      Array.from({ length: 16 }, () => fox),
      1.0,
    );
    const balance = () => t.services.store.getBalance(accountId, 'live');
    const before = await balance();
    const stream = await client.audio.transcriptions.create({
      file: createReadStream(long),
      model: 'gpt-4o-mini-transcribe',
      stream: true,
    });
    let deltas = 0;
    for await (const ev of stream) {
      if (ev.type === 'transcript.text.delta') deltas++;
      if (deltas === 1) break;
    }
    assert.equal(deltas, 1);
    // Breaking out of the loop aborts the response: the server sees the client leave, and the hold
    // of the whole recording (taken before recognizing) is settled for the part that went out.
    const whole = t.services.registry.sttCredits('cipher-fast', statSync(long).size / 32000);
    const rate = t.services.registry.sttRate('cipher-fast');
    let spent = whole;
    for (let i = 0; i < 200 && spent >= whole - rate; i++) {
      await new Promise((r) => setTimeout(r, 50));
      spent = before - (await balance());
    }
    assert.ok(spent >= rate, `billed ${spent}`);
    assert.ok(spent < whole / 2, `billed ${spent} of ${whole} for the whole recording`);
    // Once: nothing more is billed afterwards.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(before - (await balance()), spent);
  });
});

describe('refusals by name', () => {
  test('every new field refuses what OpenAI refuses, as BadRequestError naming it, nothing billed', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    const create = (extra: Record<string, unknown>) =>
      client.audio.transcriptions.create({
        file: createReadStream(fox),
        model: 'whisper-1',
        ...extra,
      } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming);
    for (const k of ['<b>', 'a>b', 'two\nlines', 'cr\r', '']) await assert.rejects(create({ keywords: [k] }), badRequest('keywords'));
    await assert.rejects(create({ keywords: Array.from({ length: 101 }, (_, i) => `w${i}`) }), badRequest('keywords'));
    await assert.rejects(create({ language: 'en', languages: ['en'] }), badRequest('languages'));
    for (const l of ['english!', 'x'.repeat(20), '']) await assert.rejects(create({ languages: [l] }), badRequest('languages'));
    await assert.rejects(create({ include: ['tokens'] }), badRequest('include'));
    await assert.rejects(create({ include: ['logprobs'], response_format: 'verbose_json' }), badRequest('include'));
    for (const c of [
      'manual',
      { type: 'client_vad' },
      { type: 'server_vad', threshold: 2 },
      { type: 'server_vad', silence_duration_ms: -5 },
      { type: 'server_vad', other: 1 },
    ]) {
      await assert.rejects(create({ chunking_strategy: c }), badRequest('chunking_strategy'));
    }
    await assert.rejects(
      create({ known_speaker_names: ['agent'], known_speaker_references: ['data:audio/wav;base64,UklGRg=='] }),
      badRequest('known_speaker_names'),
    );
    for (const temperature of [2, -1]) await assert.rejects(create({ temperature }), badRequest('temperature'));
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
  });

  test('raw multipart as curl writes it: JSON arrays and a JSON chunking_strategy', async () => {
    const form = new FormData();
    form.set('file', new Blob([await (await import('node:fs/promises')).readFile(fox)]), 'fox.wav');
    form.set('model', 'whisper-1');
    form.set('languages', '["en"]');
    form.set('keywords', '["brown fox"]');
    form.set('chunking_strategy', '{"type":"server_vad","silence_duration_ms":400}');
    const res = await fetch(`${client.baseURL}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(((await res.json()) as { languages: unknown }).languages, [{ code: 'en' }]);
    for (const [field, value] of [
      ['languages', '[1]'],
      ['keywords', '["a"'],
      ['chunking_strategy', '{"type":'],
      ['chunking_strategy', '[]'],
    ]) {
      const bad = new FormData();
      bad.set('file', new Blob([Buffer.from('RIFF')]), 'x.wav');
      bad.set('model', 'whisper-1');
      bad.set(field!, value!);
      const r = await fetch(`${client.baseURL}/audio/transcriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: bad,
      });
      assert.equal(r.status, 400, `${field}=${value}`);
      assert.equal(((await r.json()) as { error: { param: string } }).error.param, field);
    }
  });
});
