// The OpenAI dialect against the native endpoint for the same work, side by side in one run:
// speech (a sentence, WAV and MP3) and transcription (a Flite sentence), the two interleaved so
// load and warm-up hit both alike. Plain fetch on both sides (the server's cost, not the SDK's).
// In-process app on real SQLite, as the tests build it.
// Run: node --import tsx bench/compat-openai.ts   (RUNS, default 15)
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { median, table } from './lib.js';
import { createTestAccount, createTestApp } from '../test/helpers/app.js';
import { flite } from '../test/helpers/speech.js';

const RUNS = Number(process.env.RUNS ?? 15);
const t = await createTestApp();
await t.app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
const { apiKey } = await createTestAccount(t.services, { plan: 'enterprise', credits: 1_000_000_000 });
await t.services.registry.whenReady();
const text = 'The quick brown fox jumps over the lazy dog, and then it runs away.';
const wav = readFileSync(flite('The quick brown fox jumps over the lazy dog.'));

async function timed(fn: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return performance.now() - start;
}
const json = (url: string, headers: Record<string, string>, body: object) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const form = (fields: Record<string, string>) => {
  const f = new FormData();
  f.set('file', new Blob([wav]), 'a.wav');
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

const cases: Array<{ name: string; native: () => Promise<Response>; openai: () => Promise<Response> }> = [];
for (const format of ['wav', 'mp3'] as const) {
  cases.push({
    name: `speech ${format}`,
    native: () => json(`${base}/api/v1/tts/generate`, { 'x-api-key': apiKey }, { text, voice: 'Aria', model: 'aura-prime', format }),
    openai: () => json(`${base}/v1/audio/speech`, { authorization: `Bearer ${apiKey}` }, { input: text, voice: 'alloy', model: 'tts-1', response_format: format }),
  });
}
cases.push({
  name: 'transcription json',
  native: () => fetch(`${base}/api/v1/stt/transcribe`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form({ model: 'cipher-max' }) }),
  openai: () => fetch(`${base}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form({ model: 'whisper-1' }) }),
});

const rows: Array<Record<string, string | number>> = [];
for (const c of cases) {
  await timed(c.native);
  await timed(c.openai);
  const native: number[] = [];
  const openai: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternating which goes first cancels any order effect.
    if (i % 2) {
      native.push(await timed(c.native));
      openai.push(await timed(c.openai));
    } else {
      openai.push(await timed(c.openai));
      native.push(await timed(c.native));
    }
  }
  const n = median(native);
  const o = median(openai);
  rows.push({ case: c.name, 'native median ms': n.toFixed(1), 'openai median ms': o.toFixed(1), 'dialect adds': `${(((o - n) / n) * 100).toFixed(1)}%` });
}
console.log(`RUNS=${RUNS}`);
console.log(table(rows));
await t.close();
