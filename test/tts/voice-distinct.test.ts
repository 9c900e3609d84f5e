// No two catalogue voices of different names sound the same (issue 20): every English voice of
// every model (the Aura voices in en-US, the Flash voices in their own English) and, in each other
// Flash language, the Flash voices and the Aura voices of aura-prime say the same short text; the
// audio of differently named voices must differ. Models may share a rendering under one name
// (rapid-max speaks the Aura voices as aura-prime does); aura-max must differ from aura-prime.
// Kept cheap: one word per voice (about 600 short requests).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

before(async () => {
  t = await createTestApp();
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'enterprise', credits: 10_000_000 }));
});
after(() => t.close());

const TEXT = 'Hello.';
const AURA_MODELS = ['aura-lite', 'aura-prime', 'aura-max', 'rapid-max'];

async function getJson<T>(url: string): Promise<T> {
  const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as T;
}

interface Rendering {
  model: string;
  voice: string;
  language: string;
}

async function hashOf(r: Rendering): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/tts/generate',
    headers: { 'x-api-key': key },
    payload: { text: TEXT, voice: r.voice, model: r.model, language: r.language, format: 'wav' },
  });
  assert.equal(res.statusCode, 200, `${r.model} ${r.voice} ${r.language}: ${res.body}`);
  return createHash('sha256').update(res.rawPayload).digest('hex');
}

/** Renderings grouped by identical audio; each group must hold one voice name. */
async function collisions(renderings: Rendering[]): Promise<string[]> {
  const byHash = new Map<string, Rendering[]>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < renderings.length) {
        const r = renderings[next++]!;
        const h = await hashOf(r);
        byHash.set(h, [...(byHash.get(h) ?? []), r]);
      }
    }),
  );
  return [...byHash.values()]
    .filter((group) => new Set(group.map((r) => r.voice.toLowerCase())).size > 1)
    .map((group) => group.map((r) => `${r.model} ${r.voice} (${r.language})`).join(' = '));
}

/** The Aura voices' names in a language ([] where the model does not serve it, e.g. fil-PH). */
async function auraNames(model: string, language: string): Promise<string[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/voices?model=${model}&language=${language}`,
    headers: { 'x-api-key': key },
  });
  if (res.statusCode === 400 && res.json().error.code === 'LANGUAGE_NOT_SUPPORTED') return [];
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { voices: Array<{ name: string }> }).voices.map((v) => v.name);
}

test('every English voice of every model sounds different from every differently named one', async () => {
  const renderings: Rendering[] = [];
  for (const model of AURA_MODELS)
    for (const voice of await auraNames(model, 'en-US')) renderings.push({ model, voice, language: 'en-US' });
  const flash = await getJson<{ voices_by_language: Record<string, Array<{ name: string }>> }>('/api/v1/voices?model=rapid-flash');
  for (const [language, voices] of Object.entries(flash.voices_by_language)) {
    if (language.startsWith('en')) for (const v of voices) renderings.push({ model: 'rapid-flash', voice: v.name, language });
  }
  assert.ok(renderings.length >= 140, `${renderings.length} renderings`);
  assert.deepEqual(await collisions(renderings), []);
});

test('aura-max does not render any voice as aura-prime does', async () => {
  for (const voice of ['Aria', 'Orion']) {
    assert.notEqual(
      await hashOf({ model: 'aura-max', voice, language: 'en-US' }),
      await hashOf({ model: 'aura-prime', voice, language: 'en-US' }),
      voice,
    );
  }
  const [german] = await auraNames('aura-max', 'de-DE');
  assert.notEqual(
    await hashOf({ model: 'aura-max', voice: german!, language: 'de-DE' }),
    await hashOf({ model: 'aura-prime', voice: german!, language: 'de-DE' }),
    german,
  );
});

test('in every other Flash language, the Flash voices and the Aura voices all sound different', async () => {
  const flash = await getJson<{ voices_by_language: Record<string, Array<{ name: string }>> }>('/api/v1/voices?model=rapid-flash');
  const found: string[] = [];
  let languages = 0;
  for (const [language, voices] of Object.entries(flash.voices_by_language)) {
    if (language.startsWith('en')) continue;
    const renderings: Rendering[] = voices.map((v) => ({ model: 'rapid-flash', voice: v.name, language }));
    for (const voice of await auraNames('aura-prime', language)) renderings.push({ model: 'aura-prime', voice, language });
    // Per language: the English word is read by a Korean and a Thai voice alike (Latin script).
    found.push(...(await collisions(renderings)));
    languages++;
  }
  assert.ok(languages >= 13, `${languages} languages`);
  assert.deepEqual(found, []);
});
