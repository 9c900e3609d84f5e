// POST /tts/generate with the real engines and codecs: formats, headers, billing, every validation
// rule, and that speed, pitch, breaks and whisper really act on the audio.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { decodeToMono16k } from '../../src/audio/decode.js';
import { medianF0, silentSpans, speechSpan } from '../../src/audio/analysis.js';

let t: TestApp;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
});
after(() => t.close());

const generate = (payload: Record<string, unknown>, apiKey = key) =>
  t.app.inject({ method: 'POST', url: '/api/v1/tts/generate', headers: { 'x-api-key': apiKey }, payload });
async function audioOf(res: { rawPayload: Buffer }) {
  return decodeToMono16k(new Uint8Array(res.rawPayload), { allowFfmpeg: false });
}
function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.equal(res.json().error.code, code);
  return res.json().error;
}

describe('formats and headers', () => {
  test('wav, mp3, ogg and flac decode to audio of the same duration', async () => {
    const text = 'The weather today is sunny with a light breeze.';
    const durations: Record<string, number> = {};
    for (const [format, type] of [
      ['wav', 'audio/wav'],
      ['mp3', 'audio/mpeg'],
      ['ogg', 'audio/ogg'],
      ['flac', 'audio/flac'],
    ] as const) {
      const res = await generate({ text, voice: 'Aria', format });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], type);
      assert.match(String(res.headers['content-disposition']), new RegExp(`^attachment; filename="parla-[0-9a-f]+\\.${format}"$`));
      assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
      assert.match(String(res.headers['x-request-id']), /^req_/);
      assert.ok(Number(res.headers['x-processing-time-ms']) >= 0);
      assert.equal(res.headers['x-credits-used'], String([...text].length));
      durations[format] = (await audioOf(res)).length / 16000;
    }
    assert.ok(durations.wav! > 2 && durations.wav! < 6, `wav lasts ${durations.wav}`);
    for (const f of ['mp3', 'ogg', 'flac'])
      assert.ok(Math.abs(durations[f]! - durations.wav!) < 0.15, `${f} ${durations[f]} vs wav ${durations.wav}`);
  });

  test("the default format is wav at the engine's own rate", async () => {
    const res = await generate({ text: 'Default format.', voice: 'Aria' });
    assert.equal(res.headers['content-type'], 'audio/wav');
    assert.equal(res.rawPayload.readUInt32LE(24), 16000, 'Flite');
    const lite = await generate({ text: 'Default format.', voice: 'Aria', model: 'aura-lite' });
    assert.equal(lite.rawPayload.readUInt32LE(24), 16000, "aura-lite's English: Flite kal16");
    const german = await generate({ text: 'Standardformat.', voice: 'Anna', model: 'aura-lite', language: 'de-DE' });
    assert.equal(german.rawPayload.readUInt32LE(24), 22050, 'eSpeak NG');
    const max = await generate({ text: 'Default format.', voice: 'Aria', model: 'aura-max' });
    assert.equal(max.rawPayload.readUInt32LE(24), 48000, "aura-max's finishing chain");
  });

  test('long text is synthesized in parallel chunks and joined in order', async () => {
    const text = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} is here.`).join(' ');
    const pcm = await audioOf(await generate({ text, voice: 'Aria' }));
    assert.ok(pcm.length / 16000 > 15, 'all twelve sentences are there');
  });
});

describe('billing', () => {
  test('credits per character after markup removal, plus 10 per vocalization and 10 per second of break; aura-max costs 2 per character; balance header', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    const res = await generate({ text: 'Hi <break time="300ms"/> there <laugh>!<break time="1s"/>', voice: 'Aria', model: 'aura-max' });
    assert.equal(res.statusCode, 200, res.body);
    const chars = [...'Hi  there !'].length + 10 + Math.ceil(1.3 * 10);
    assert.equal(res.headers['x-credits-used'], String(2 * chars));
    assert.equal(res.headers['x-credits-remaining'], String(before - 2 * chars));
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before - 2 * chars);
  });

  test('a failed request costs nothing, and 402 when the balance cannot cover it', async () => {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 10 });
    expectError(await generate({ text: 'Hello', voice: 'Nobody' }, acct.apiKey), 400, 'INVALID_VOICE');
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 10);
    const err = expectError(
      await generate({ text: 'This text is longer than ten characters.', voice: 'Aria' }, acct.apiKey),
      402,
      'INSUFFICIENT_CREDITS',
    );
    assert.equal(err.category, 'credit');
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 10);
  });

  test('test keys spend the test balance', async () => {
    const acct = await createTestAccount(t.services, { credits: 1000, testCredits: 500 });
    const res = await generate({ text: 'Testing.', voice: 'Aria' }, acct.testKey);
    assert.equal(res.statusCode, 200);
    assert.equal(await t.services.store.getBalance(acct.accountId, 'test'), 492);
    assert.equal(await t.services.store.getBalance(acct.accountId, 'live'), 1000);
  });
});

describe('validation', () => {
  test('text: missing, empty, whitespace; too long is 413', async () => {
    expectError(await generate({ voice: 'Aria' }), 400, 'MISSING_TEXT');
    expectError(await generate({ text: '', voice: 'Aria' }), 400, 'MISSING_TEXT');
    expectError(await generate({ text: '   ', voice: 'Aria' }), 400, 'MISSING_TEXT');
    const long = expectError(await generate({ text: 'a'.repeat(5001), voice: 'Aria' }), 413, 'TEXT_TOO_LONG');
    assert.equal(long.category, 'validation');
    assert.equal((await generate({ text: 'a. '.repeat(1666) + 'ab', voice: 'Aria', model: 'aura-lite' })).statusCode, 200);
  });

  test('model, language, speed, pitch, format', async () => {
    expectError(await generate({ text: 'x', voice: 'Aria', model: 'aura-ultra' }), 400, 'INVALID_MODEL');
    expectError(await generate({ text: 'x', voice: 'Aria', language: 'xx-YY' }), 400, 'INVALID_LANGUAGE');
    expectError(await generate({ text: 'x', voice: 'Aria', language: 'zu' }), 400, 'LANGUAGE_NOT_SUPPORTED');
    expectError(await generate({ text: 'x', voice: 'Amelia', model: 'rapid-flash', language: 'sw' }), 400, 'LANGUAGE_NOT_SUPPORTED');
    expectError(await generate({ text: 'x', voice: 'Aria', speed: 0.4 }), 400, 'INVALID_SPEED');
    expectError(await generate({ text: 'x', voice: 'Aria', speed: 2.01 }), 400, 'INVALID_SPEED');
    const pitch = expectError(await generate({ text: 'x', voice: 'Aria', pitch: 21 }), 400, 'INVALID_PITCH');
    assert.match(pitch.message, /-20 to \+20/);
    const fmt = expectError(await generate({ text: 'x', voice: 'Aria', format: 'aiff' }), 400, 'INVALID_FORMAT');
    assert.match(fmt.message, /wav, mp3, ogg, flac/);
  });

  test('voices: wrong set for the model, unknown, and localized names with suggestions', async () => {
    const flashWithAura = expectError(await generate({ text: 'x', voice: 'Amelia', model: 'aura-prime' }), 400, 'INVALID_VOICE');
    assert.match(flashWithAura.message, /rapid-flash/);
    const auraWithFlash = expectError(await generate({ text: 'x', voice: 'Aria', model: 'rapid-flash' }), 400, 'INVALID_VOICE');
    assert.ok(auraWithFlash.details.suggestions.includes('Amelia'));
    const localized = expectError(await generate({ text: 'Hallo', voice: 'Aria', language: 'de-DE' }), 400, 'INVALID_VOICE');
    assert.deepEqual(localized.details.suggestions, ['Anna']);
    assert.equal(localized.details.provided, 'Aria');
    assert.equal((await generate({ text: 'Hallo zusammen.', voice: 'Anna', language: 'de-DE' })).statusCode, 200);
    assert.equal((await generate({ text: 'Hallo zusammen.', voice: 'anna', language: 'de' })).statusCode, 200);
  });

  test('markup: malformed is INVALID_MARKUP; any markup with Rapid models is EXPRESSION_NOT_SUPPORTED', async () => {
    expectError(await generate({ text: 'Hi <break time="soon"/>', voice: 'Aria' }), 400, 'INVALID_MARKUP');
    expectError(await generate({ text: 'Hi <shout>x</shout>', voice: 'Aria' }), 400, 'INVALID_MARKUP');
    expectError(await generate({ text: '<whisper>open', voice: 'Aria' }), 400, 'INVALID_MARKUP');
    expectError(await generate({ text: 'Ha <laugh>', voice: 'Aria', model: 'rapid-max' }), 400, 'EXPRESSION_NOT_SUPPORTED');
    expectError(await generate({ text: 'A <break time="1s"/> B', voice: 'Amelia', model: 'rapid-flash' }), 400, 'EXPRESSION_NOT_SUPPORTED');
    assert.equal((await generate({ text: 'Is 3 < 5? Yes, and 7 > 2.', voice: 'Aria' })).statusCode, 200);
  });

  test('plan gating and feature switches', async () => {
    const free = await createTestAccount(t.services, { plan: 'free' });
    const model = expectError(await generate({ text: 'x', voice: 'Aria', model: 'aura-max' }, free.apiKey), 403, 'MODEL_ACCESS_DENIED');
    assert.equal(model.category, 'permission');
    // aura-06 is premium; its en-US name is the third male name.
    const premium = t.services.catalog.auraName(t.services.catalog.data.auraVoices.find((v) => v.id === 'aura-06')!, 'en-US');
    expectError(await generate({ text: 'x', voice: premium }, free.apiKey), 403, 'VOICE_ACCESS_DENIED');
    assert.equal((await generate({ text: 'Premium.', voice: premium })).statusCode, 200, 'pro may use premium voices');
    await t.services.store.setFeature(free.accountId, 'tts', false);
    t.services.authenticator.invalidate();
    const off = expectError(await generate({ text: 'x', voice: 'Aria' }, free.apiKey), 403, 'FEATURE_DISABLED');
    assert.match(off.message, /tts/);
  });
});

describe('the audio itself', () => {
  test('speed 2.0 lasts about half as long as 1.0, and 0.5 about twice', async () => {
    const text = 'Speech rate changes the length of this sentence noticeably.';
    const span = async (speed: number) => speechSpan(await audioOf(await generate({ text, voice: 'Aria', speed })), 16000);
    const [normal, fast, slow] = [await span(1), await span(2), await span(0.5)];
    assert.ok(fast / normal > 0.4 && fast / normal < 0.65, `fast/normal = ${fast / normal}`);
    assert.ok(slow / normal > 1.6 && slow / normal < 2.4, `slow/normal = ${slow / normal}`);
  });

  test('pitch +12 semitones doubles the fundamental frequency, -12 halves it', async () => {
    const text = 'A long vowel sound, aaah, helps measure the pitch of the voice.';
    const f0 = async (pitch: number, voice = 'Aria', model = 'aura-prime') => {
      const pcm = await audioOf(await generate({ text, voice, pitch, model }));
      return { f0: medianF0(pcm, 16000).f0, dur: speechSpan(pcm, 16000) };
    };
    // Female voices: their fundamental an octave down stays within what the estimator measures.
    for (const [voice, model] of [
      ['Aria', 'aura-prime'],
      ['Aria', 'aura-lite'],
    ]) {
      const base = await f0(0, voice, model);
      const up = await f0(12, voice, model);
      const down = await f0(-12, voice, model);
      assert.ok(up.f0 / base.f0 > 1.75 && up.f0 / base.f0 < 2.25, `${model} +12: ${up.f0} vs ${base.f0}`);
      assert.ok(down.f0 / base.f0 > 0.42 && down.f0 / base.f0 < 0.58, `${model} -12: ${down.f0} vs ${base.f0}`);
      assert.ok(Math.abs(up.dur - base.dur) / base.dur < 0.15, `${model} duration kept: ${up.dur} vs ${base.dur}`);
    }
  });

  test('break tags insert silences of the requested length, clamped to 20 s', async () => {
    const pcm = await audioOf(
      await generate({ text: 'Before the pause.<break time="1500ms"/>After the pause.<break time="25s"/>The end.', voice: 'Aria' }),
    );
    const gaps = silentSpans(pcm, 16000, { minSeconds: 0.8 }).map((s) => s.end - s.start);
    assert.equal(gaps.length, 2, JSON.stringify(gaps));
    assert.ok(Math.abs(gaps[0]! - 1.5) < 0.2, `first gap ${gaps[0]}`);
    assert.ok(Math.abs(gaps[1]! - 20) < 0.3, `clamped gap ${gaps[1]}`);
  });

  test('a text with breaks: the streamed WAV and a FLAC joined in the worker have the same silences', async () => {
    const text = 'One.<break time="2s"/>Two.<break time="3s"/>Three.';
    const gaps: Record<string, number[]> = {};
    for (const format of ['wav', 'flac']) {
      const res = await generate({ text, voice: 'Aria', model: 'aura-lite', format });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
      gaps[format] = silentSpans(await audioOf(res), 16000, { minSeconds: 0.8 }).map((g) => g.end - g.start);
    }
    assert.equal(gaps.wav!.length, 2, JSON.stringify(gaps));
    // eSpeak's own pause after a sentence (up to ~0.25 s) adds to the break.
    assert.ok(
      gaps.wav![0]! - 2 > -0.1 && gaps.wav![0]! - 2 < 0.3 && gaps.wav![1]! - 3 > -0.1 && gaps.wav![1]! - 3 < 0.3,
      JSON.stringify(gaps),
    );
    assert.equal(gaps.flac!.length, 2, JSON.stringify(gaps));
    for (const i of [0, 1]) assert.ok(Math.abs(gaps.flac![i]! - gaps.wav![i]!) < 0.05, JSON.stringify(gaps));
  });

  test('whisper is unvoiced speech of about the same length; vocalizations add audio', async () => {
    const text = 'Please keep this a secret between the two of us.';
    const normal = await audioOf(await generate({ text, voice: 'Aria' }));
    const whisper = await audioOf(await generate({ text: `<whisper>${text}</whisper>`, voice: 'Aria' }));
    const nv = medianF0(normal, 16000).voicedShare;
    const wv = medianF0(whisper, 16000).voicedShare;
    assert.ok(wv < nv * 0.5, `voiced share whisper ${wv} vs normal ${nv}`);
    assert.ok(Math.abs(speechSpan(whisper, 16000) - speechSpan(normal, 16000)) < 0.6);
    const laugh = await audioOf(await generate({ text: `${text} <laugh>`, voice: 'Aria' }));
    assert.ok(laugh.length / 16000 > normal.length / 16000 + 0.4, 'the laugh is audible extra audio');
    const lite = await generate({
      text: `<whisper>${text}</whisper> <sigh> <emphasis>really</emphasis>`,
      voice: 'Aria',
      model: 'aura-lite',
    });
    assert.equal(lite.statusCode, 200);
  });
});
