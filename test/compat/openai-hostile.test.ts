// Hostile input on the OpenAI dialect that needs more than one answer to judge: wrong JSON types
// for every speech field bill nothing (the balance is read before and after), and revoked or
// disabled keys. The named cases and generated bodies for /v1 (malformed and deep JSON, multipart
// faults, odd fields, auth headers, methods and paths, opus/aac) live in the shared hostile corpus
// (test/hostile/corpus.ts, generated.ts), which checks OpenAI's error shape on every answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { silenceWav } from '../hostile/builders.js';
import { flite } from '../helpers/speech.js';
import { readFileSync } from 'node:fs';

let t: TestApp;
let key: string;
let accountId: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
});
after(() => t.close());

const SPEECH_BASE = {
  model: 'tts-1',
  input: 'Hi.',
  voice: 'alloy',
  response_format: 'wav',
  speed: 1,
  instructions: 'calm',
  stream_format: 'audio',
};

/** Wrong-typed values for a field (null is "not given" and is left out). */
const WRONG = [123, -1, true, [], ['alloy'], {}, { id: 'alloy' }, '', 'x'.repeat(5000), 'mp4', 1e308, 'NaN'];

/** Whether `v` is a value the speech field takes (then it is no hostile case for that field). */
function accepted(field: string, v: unknown): boolean {
  if (field === 'input') return typeof v === 'string' && v.length >= 1 && v.length <= 4096;
  if (field === 'instructions') return typeof v === 'string' && v.length <= 4096;
  if (field === 'speed') return typeof v === 'number' && v >= 0.25 && v <= 4;
  return false;
}

async function expectOpenAiError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, what: string) {
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  const body = JSON.parse(res.body);
  assert.equal(typeof body.error?.message, 'string', what);
  assert.equal(typeof body.error?.type, 'string', what);
  assert.equal(typeof body.error?.code, 'string', what);
  assert.ok('param' in body.error, what);
  assert.ok(res.headers['x-request-id'], what);
}

test('speech: a wrong type or value in every field is a 4xx in OpenAI shape, nothing billed', async () => {
  const before = await t.services.store.getBalance(accountId, 'live');
  for (const field of Object.keys(SPEECH_BASE)) {
    for (const v of WRONG) {
      const body = { ...SPEECH_BASE, [field]: v };
      // Values the field really accepts are not hostile for it.
      if (accepted(field, v)) continue;
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/audio/speech',
        headers: { authorization: `Bearer ${key}` },
        payload: body,
      });
      await expectOpenAiError(res, `${field}=${JSON.stringify(v).slice(0, 40)}`);
    }
  }
  assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
});

test('key states: a revoked and a disabled key are 401 in OpenAI shape', async () => {
  for (const state of ['disabled', 'revoked'] as const) {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 1000 });
    assert.ok(await t.services.store.setKeyState(acct.keyId, state));
    t.services.authenticator.invalidate();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/audio/speech',
      headers: { authorization: `Bearer ${acct.apiKey}` },
      payload: SPEECH_BASE,
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, `auth_${state}_api_key`);
  }
});

/** Hostile values of OpenAI's newer transcription fields (src/compat/openai/transcription-fields.ts). */
const silenceWavBytes = (seconds: number) => silenceWav(seconds);
/** A well-formed reference (3 s of silence): the cases using it fail on another rule first. */
const WAV_URL = `data:audio/wav;base64,${silenceWavBytes(3).toString('base64')}`;

const TRANSCRIPTION_CASES: Array<[string, Record<string, string | string[]>, string | null]> = [
  ['keywords with <', { 'keywords[]': ['<script>'] }, 'keywords'],
  ['keywords with CR LF', { 'keywords[]': ['a\r\nb'] }, 'keywords'],
  ['keywords empty item', { 'keywords[]': [''] }, 'keywords'],
  ['keywords over 100 characters', { 'keywords[]': ['k'.repeat(101)] }, 'keywords'],
  ['keywords 150 items', { 'keywords[]': Array.from({ length: 150 }, (_, i) => `w${i}`) }, 'keywords'],
  ['keywords JSON of numbers', { keywords: '[1,2]' }, 'keywords'],
  ['keywords JSON deep', { keywords: `${'['.repeat(5000)}${']'.repeat(5000)}` }, 'keywords'],
  ['keywords JSON broken', { keywords: '["a",' }, 'keywords'],
  ['languages with language', { language: 'en', 'languages[]': ['en'] }, 'languages'],
  ['languages not a code', { 'languages[]': ['english; DROP'] }, 'languages'],
  ['languages NUL', { 'languages[]': ['e\u0000n'] }, 'languages'],
  ['languages 11 items', { 'languages[]': Array.from({ length: 11 }, () => 'en') }, 'languages'],
  ['languages JSON object', { languages: '[{"code":"en"}]' }, 'languages'],
  ['include unknown', { 'include[]': ['__proto__'] }, 'include'],
  ['include logprobs with text', { 'include[]': ['logprobs'], response_format: 'text' }, 'include'],
  ['chunking unknown word', { chunking_strategy: 'none' }, 'chunking_strategy'],
  ['chunking JSON array', { chunking_strategy: '[]' }, 'chunking_strategy'],
  ['chunking JSON null', { chunking_strategy: 'null' }, 'chunking_strategy'],
  ['chunking proto key', { chunking_strategy: '{"type":"server_vad","__proto__":{"x":1}}' }, 'chunking_strategy'],
  ['chunking part __proto__', { 'chunking_strategy[type]': 'server_vad', 'chunking_strategy[__proto__]': '1' }, 'chunking_strategy'],
  ['chunking part constructor', { 'chunking_strategy[type]': 'server_vad', 'chunking_strategy[constructor]': '1' }, 'chunking_strategy'],
  ['chunking part nested', { 'chunking_strategy[type][x]': 'server_vad' }, 'chunking_strategy'],
  ['chunking repeated part', { 'chunking_strategy[type]': ['server_vad', 'server_vad'] }, 'chunking_strategy'],
  ['chunking twice', { chunking_strategy: ['auto', 'auto'] }, 'chunking_strategy'],
  ['chunking both forms', { chunking_strategy: 'auto', 'chunking_strategy[type]': 'server_vad' }, 'chunking_strategy'],
  ['chunking threshold NaN', { 'chunking_strategy[type]': 'server_vad', 'chunking_strategy[threshold]': 'NaN' }, 'chunking_strategy'],
  ['chunking threshold 1e308', { chunking_strategy: '{"type":"server_vad","threshold":1e308}' }, 'chunking_strategy'],
  ['chunking silence string', { chunking_strategy: '{"type":"server_vad","silence_duration_ms":"5 minutes"}' }, 'chunking_strategy'],
  ['chunking padding negative', { chunking_strategy: '{"type":"server_vad","prefix_padding_ms":-1}' }, 'chunking_strategy'],
  [
    'known speakers',
    { 'known_speaker_names[]': ['agent'], 'known_speaker_references[]': ['data:audio/wav;base64,AAAA'] },
    'known_speaker_names',
  ],
  ['known speaker references alone', { 'known_speaker_references[]': ['data:,'] }, 'known_speaker_names'],
  ['known speaker names alone', { 'known_speaker_names[]': ['agent'], response_format: 'diarized_json' }, 'known_speaker_references'],
  [
    'known speakers count mismatch',
    { 'known_speaker_names[]': ['a', 'b'], 'known_speaker_references[]': [WAV_URL], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speakers 5',
    {
      'known_speaker_names[]': ['a', 'b', 'c', 'd', 'e'],
      'known_speaker_references[]': Array(5).fill(WAV_URL),
      response_format: 'diarized_json',
    },
    'known_speaker_names',
  ],
  [
    'known speaker name NUL',
    { 'known_speaker_names[]': ['a\u0000b'], 'known_speaker_references[]': [WAV_URL], response_format: 'diarized_json' },
    'known_speaker_names',
  ],
  [
    'known speaker name bidi override',
    { 'known_speaker_names[]': ['\u202eagent'], 'known_speaker_references[]': [WAV_URL], response_format: 'diarized_json' },
    'known_speaker_names',
  ],
  [
    'known speaker name __proto__ twice',
    {
      'known_speaker_names[]': ['__proto__', '__proto__'],
      'known_speaker_references[]': [WAV_URL, WAV_URL],
      response_format: 'diarized_json',
    },
    'known_speaker_names',
  ],
  [
    'known speaker name 20 KB',
    { 'known_speaker_names[]': ['n'.repeat(20_000)], 'known_speaker_references[]': [WAV_URL], response_format: 'diarized_json' },
    'known_speaker_names',
  ],
  [
    'known speaker reference a URL',
    { 'known_speaker_names[]': ['a'], 'known_speaker_references[]': ['http://127.0.0.1:1/a.wav'], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speaker reference file URL',
    { 'known_speaker_names[]': ['a'], 'known_speaker_references[]': ['file:///etc/passwd'], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speaker reference not base64',
    { 'known_speaker_names[]': ['a'], 'known_speaker_references[]': ['data:audio/wav,RIFF....'], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speaker reference bad base64',
    { 'known_speaker_names[]': ['a'], 'known_speaker_references[]': ['data:audio/wav;base64,%%%%'], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speaker reference text type',
    { 'known_speaker_names[]': ['a'], 'known_speaker_references[]': ['data:text/html;base64,PGI+'], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speaker reference empty',
    { 'known_speaker_names[]': ['a'], 'known_speaker_references[]': ['data:audio/wav;base64,'], response_format: 'diarized_json' },
    'known_speaker_references',
  ],
  [
    'known speaker reference header 300 chars',
    {
      'known_speaker_names[]': ['a'],
      'known_speaker_references[]': [`data:audio/wav;${'x'.repeat(300)};base64,AAAA`],
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  [
    'known speaker reference not audio',
    {
      'known_speaker_names[]': ['a'],
      'known_speaker_references[]': [`data:audio/wav;base64,${Buffer.from('RIFF not really').toString('base64')}`],
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  [
    'known speaker reference 0.5 s',
    {
      'known_speaker_names[]': ['a'],
      'known_speaker_references[]': [`data:audio/wav;base64,${silenceWavBytes(0.5).toString('base64')}`],
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  [
    'known speaker reference 60 s declared',
    {
      'known_speaker_names[]': ['a'],
      'known_speaker_references[]': [`data:audio/wav;base64,${silenceWavBytes(60).toString('base64')}`],
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  [
    'known speaker reference over the byte cap',
    {
      'known_speaker_names[]': ['a'],
      'known_speaker_references[]': [`data:audio/wav;base64,${'A'.repeat(2_700_000)}`],
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  [
    'known speaker references over the total cap',
    {
      'known_speaker_names[]': ['a', 'b', 'c', 'd', 'e'],
      'known_speaker_references[]': Array(5).fill(`data:audio/wav;base64,${'A'.repeat(2_500_000)}`),
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  [
    'known speaker reference in a plain part over 16 KiB as JSON',
    {
      known_speaker_names: '["a"]',
      known_speaker_references: JSON.stringify([`data:audio/wav;base64,${'A'.repeat(20_000)}`]),
      response_format: 'diarized_json',
    },
    'known_speaker_references',
  ],
  ['temperature text', { temperature: 'hot' }, 'temperature'],
  ['temperature over 1', { temperature: '1.5' }, 'temperature'],
  ['stream maybe', { stream: 'maybe' }, 'stream'],
  ['response_format diarized_jsonx', { response_format: 'diarized_jsonx' }, 'response_format'],
  ['161 field parts', { 'x[]': Array.from({ length: 161 }, () => 'x') }, null],
];

test('transcriptions: every hostile value of the newer fields is a 400 naming the field, in OpenAI shape, nothing billed', async () => {
  const fox = readFileSync(flite('Hello there.'));
  const before = await t.services.store.getBalance(accountId, 'live');
  for (const [what, fields, param] of TRANSCRIPTION_CASES) {
    const { body, contentType } = await multipart(fox, { model: 'whisper-1', ...fields });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/audio/transcriptions',
      headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
      payload: body,
    });
    await expectOpenAiError(res, what);
    assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
    if (param) assert.equal(JSON.parse(res.body).error.param, param, `${what}: ${res.body}`);
  }
  assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
});

test('jobs: hostile url-encoded forms are 4xx in the native shape, never a job', async () => {
  const cases: Array<[string, string]> = [
    ['no url', 'model=cipher-fast'],
    ['prototype keys', '__proto__=x&constructor=y&url=http%3A%2F%2F127.0.0.1%3A1%2Fa.wav'],
    ['repeated url', 'url=http%3A%2F%2Fa.example%2Fa.wav&url=http%3A%2F%2Fb.example%2Fb.wav'],
    ['bad percent', 'url=%E0%A4%A&model=%'],
    ['only separators', '&&&==&'],
    ['over 64 KiB', `url=${'a'.repeat(70 * 1024)}`],
  ];
  for (const [what, payload] of cases) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/jobs',
      headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
      payload,
    });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    assert.equal(JSON.parse(res.body).success, false, what);
  }
  // A NUL in a form's url is cleaned and an unknown field is not read, as in JSON (docs/jobs.md): a job, never a 500.
  for (const payload of ['url=http%3A%2F%2Fa.example%2F%00.wav', 'url=http%3A%2F%2Fa.example%2Fa.wav&keywords[][x]=1']) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/jobs',
      headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
      payload,
    });
    assert.ok(res.statusCode === 202 || (res.statusCode >= 400 && res.statusCode < 500), res.body);
  }
});
