// Japanese, Chinese and Korean through POST /tts/generate with catalogue voices: text in kanji,
// hanzi or hanja is spoken as words, as long as the same sentence spelt in kana, pinyin or
// hangul (eSpeak alone says "Chinese letter" for every kanji and hanja: ~3x as long). The
// Japanese dictionary loads on a thread of its own, only once Japanese or Korean text needs it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { decodePcm16MonoWav } from '../../src/audio/wav.js';
import { closeReadings, readingsStarted, toReadings } from '../../src/tts/readings/readings.js';
import { analyserPieces, japaneseLoadedInThisThread } from '../../src/tts/readings/convert.js';
import type { TtsEngine } from '../../src/engines/engine.js';

let t: TestApp;
let key: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
});
after(async () => {
  await t.close();
  await closeReadings();
});

/** Seconds of audio /tts/generate returns for the text. */
async function seconds(payload: Record<string, unknown>): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key },
    payload: { format: 'wav', ...payload },
  });
  assert.equal(res.statusCode, 200, res.body);
  const wav = decodePcm16MonoWav(new Uint8Array(res.rawPayload))!;
  return wav.samples.length / wav.sampleRate;
}

/** Seconds of audio eSpeak makes of the text as it is, without readings (what the service did before). */
async function espeakAlone(text: string, language: string): Promise<number> {
  const engine = t.services.registry.ttsEngine('espeak') as TtsEngine;
  const r = await engine.synthesize({ text, engineVoice: 'f2', language, speed: 1, pitch: 0, style: 'normal' });
  return r.samples.length / r.sampleRate;
}

describe('languages that need no readings', () => {
  test('English, Chinese and kana without a particle never start the readings thread', async () => {
    await seconds({ text: 'Hello there.', voice: 'Aria', model: 'aura-lite' });
    await seconds({ text: '今天天气很好。', voice: 'Wei', model: 'aura-lite', language: 'zh' });
    // Kana with は, へ or を goes through the dictionary (the particles are read wa, e, o: issue 29).
    await seconds({ text: 'きょうもいいてんきですね。', voice: 'Paige', model: 'rapid-flash' });
    assert.equal(readingsStarted(), false);
  });

  test('Chinese: hanzi (simplified and traditional) last as long as their pinyin, as Mandarin syllables', async () => {
    const voice = { voice: 'Wei', model: 'aura-lite', language: 'zh' };
    const simplified = await seconds({ ...voice, text: '我们明天去北京开会。' });
    const traditional = await seconds({ ...voice, text: '我們明天去北京開會。' });
    const pinyin = await seconds({ ...voice, text: 'wo3 men5 ming2 tian1 qu4 bei3 jing1 kai1 hui4.' });
    assert.ok(simplified / pinyin <= 1.3 && pinyin / simplified <= 1.3, `hanzi ${simplified} s, pinyin ${pinyin} s`);
    assert.ok(Math.abs(traditional - simplified) / simplified < 0.1, `traditional ${traditional} s, simplified ${simplified} s`);
    // "Chinese letter" for each of 9 characters would take ~7 s.
    assert.ok(simplified < 9 * 0.45, `${simplified} s for 9 syllables`);
  });
});

describe('Japanese', () => {
  test('a kanji sentence lasts within 1.3x its kana spelling (eSpeak alone: ~3x)', async () => {
    for (const voice of [
      { voice: 'Paige', model: 'rapid-flash' },
      { voice: 'Yui', model: 'aura-prime', language: 'ja' },
    ]) {
      const kanji = await seconds({ ...voice, text: '会議は九時に始まります。' });
      const kana = await seconds({ ...voice, text: 'かいぎはくじにはじまります。' });
      assert.ok(kanji / kana <= 1.3, `${voice.voice}: kanji ${kanji} s, kana ${kana} s`);
    }
    const before = await espeakAlone('会議は九時に始まります。', 'ja');
    const kana = await espeakAlone('かいぎはくじにはじまります。', 'ja');
    assert.ok(before / kana > 2, `without readings: ${before} s against ${kana} s: the comparison above can fail`);
  });

  test('/tts/stream reads kanji too: as long as the kana spelling', async () => {
    const streamed = async (text: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tts/stream',
        headers: { 'x-api-key': key },
        payload: { text, voice: 'Paige', model: 'rapid-flash', sample_rate: 16000 },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.rawPayload.length / 2 / 16000;
    };
    const kanji = await streamed('会議は九時に始まります。');
    const kana = await streamed('かいぎはくじにはじまります。');
    assert.ok(kanji / kana <= 1.3, `kanji ${kanji} s, kana ${kana} s`);
  });

  test('a 36-character sentence is read as words, far below eSpeak alone', async () => {
    const text = '明日の午後三時から東京本社の第一会議室で新しい製品の発表会を開催します。';
    assert.equal([...text].length, 36);
    const now = await seconds({ text, voice: 'Paige', model: 'rapid-flash' });
    const alone = await espeakAlone(text, 'ja-JP');
    const kana = await espeakAlone((await toReadings('ja', text)).text, 'ja-JP');
    assert.ok(now / kana <= 1.3, `${now} s against ${kana} s for its readings`);
    assert.ok(now < alone / 2, `${now} s against ${alone} s without readings`);
  });

  test('the dictionary is loaded on the readings thread, never on the main thread', () => {
    assert.equal(readingsStarted(), true);
    assert.equal(japaneseLoadedInThisThread(), false);
  });

  test('readings keep the original text as tokens: particle は as ワ, long vowels, Latin and digits as they are', async () => {
    const r = await toReadings('ja', '東京は9時。ABC');
    assert.equal(r.tokens.map((x) => x.surface).join(''), '東京は9時。ABC');
    assert.equal(r.text, 'トーキョーワ9ジ。ABC');
    assert.deepEqual(r.tokens.slice(0, 2), [
      { surface: '東京', reading: 'トーキョー' },
      { surface: 'は', reading: 'ワ' },
    ]);
  });

  test('long runs are analysed in bounded pieces, cut after punctuation, never inside a surrogate pair', async () => {
    const text = 'カ'.repeat(300) + '。' + '😀'.repeat(100);
    const pieces = analyserPieces(text);
    assert.equal(pieces.join(''), text);
    assert.ok(pieces.every((p) => p.length <= 128));
    assert.ok(pieces.every((p) => !/^[\uDC00-\uDFFF]/.test(p)));
    // kuromoji alone is quadratic on such a run (4,000 katakana: ~3 s; in pieces: ~0.2 s).
    const long = await toReadings('ja', 'カ'.repeat(5_000));
    assert.equal(long.text, 'カ'.repeat(5_000));
  });
});

describe('Korean', () => {
  test('hanja are read as hangul: within 1.3x the hangul spelling (eSpeak alone: ~2x)', async () => {
    const hanja = await seconds({ text: '韓國語를 공부합니다.', voice: 'Quinn', model: 'rapid-flash' });
    const hangul = await seconds({ text: '한국어를 공부합니다.', voice: 'Quinn', model: 'rapid-flash' });
    assert.ok(hanja / hangul <= 1.3, `hanja ${hanja} s, hangul ${hangul} s`);
    const before = await espeakAlone('韓國語를 공부합니다.', 'ko');
    assert.ok(before / (await espeakAlone('한국어를 공부합니다.', 'ko')) > 1.6, `without readings: ${before} s`);
    const r = await toReadings('ko', '大韓民國은 民主共和國이다.');
    assert.equal(r.text, '대한민국은 민주공화국이다.');
    assert.equal(r.tokens.map((x) => x.surface).join(''), '大韓民國은 民主共和國이다.');
  });
});
