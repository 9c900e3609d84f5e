// What reaches an engine (issue 19: "a\u0000b" was 500 ENGINE_ERROR, Flite gets text as a process
// argument): control characters, lone surrogates and noncharacters are removed at the edge and not
// billed, on both TTS endpoints and every engine path (Flite argv, eSpeak file, eSpeak SSML).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { cleanTtsText } from '../../src/tts/clean-text.js';

let t: TestApp;
let key: string;

before(async () => {
  t = await createTestApp({ PARLA_WORKERS: '2' });
  key = (await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 })).apiKey;
});
after(() => t.close());

const post = (endpoint: 'generate' | 'stream', payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/api/v1/tts/${endpoint}`, headers: { 'x-api-key': key }, payload });

const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i))
  .filter((c) => !'\t\n\r'.includes(c))
  .join('');
const C1 = Array.from({ length: 33 }, (_, i) => String.fromCharCode(0x7f + i)).join('');

test('cleaning keeps text, tabs, line breaks and surrogate pairs; drops controls, lone surrogates, noncharacters', () => {
  assert.equal(cleanTtsText('Hello,\tworld.\r\nBye 😀'), 'Hello,\tworld.\r\nBye 😀');
  assert.equal(cleanTtsText(`a${C0}b${C1}c`), 'abc');
  assert.equal(cleanTtsText('a\ud800b\udc00c\ud800'), 'abc');
  assert.equal(cleanTtsText('a\ufffe\uffff\ufdd0\ufdefb\ud83f\udfff\udbff\udffec'), 'abc');
});

const hostile: Record<string, string> = {
  NUL: 'a\u0000b',
  'every C0 and C1 control': `Hello ${C0} there ${C1} friend.`,
  'escape sequences': 'Red \u001b[31malert\u001b[0m now.',
  'lone surrogates': 'One \ud800 two \udfff three.',
  noncharacters: 'Four \ufffe five \uffff six \ufdd0.',
  'a leading dash (an option to a program)': '-o /tmp/x --help -voice',
  'SSML-special characters': 'Tom & Jerry say "<hi>" & \'bye\' > all <3',
};

for (const [name, text] of Object.entries(hostile)) {
  test(`${name}: 200 with audio on both endpoints and every engine path`, async () => {
    const plain = text.replace(/<hi>/, '');
    for (const payload of [
      { text: plain, voice: 'Aria' },
      { text: plain, voice: 'Aria', model: 'aura-lite' },
      { text: `<emphasis>${plain}</emphasis>`, voice: 'Aria', model: 'aura-lite' },
      { text: `<whisper>${plain}</whisper>`, voice: 'Aria' },
    ]) {
      const res = await post('generate', payload);
      assert.equal(res.statusCode, 200, `${JSON.stringify(payload)}: ${res.body}`);
      assert.ok(res.rawPayload.length > 44 + 1000, 'audio');
      assert.equal(res.headers['x-credits-used'], String([...cleanTtsText(plain)].length), 'removed characters are not billed');
      const streamed = await post('stream', { ...payload, sample_rate: 16000 });
      assert.equal(streamed.statusCode, 200, `${JSON.stringify(payload)}: ${streamed.body}`);
      assert.ok(streamed.rawPayload.length > 1000, 'streamed audio');
    }
  });
}

test('text that is only control characters is 400 MISSING_TEXT', async () => {
  for (const endpoint of ['generate', 'stream'] as const) {
    const res = await post(endpoint, { text: '\u0000\u0001\ud800 \u007f', voice: 'Aria' });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'MISSING_TEXT');
  }
});
