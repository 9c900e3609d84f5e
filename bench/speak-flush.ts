// Time to first audio for a one-sentence text, side by side in one run: over the Deepgram speak
// socket (WS /v1/speak: from sending Flush to the first binary frame; the Speak goes just before
// it, on a socket already open, as a voice agent's) and over native /api/v1/tts/stream (from the
// request to its first body byte), same text, voice (aura-2-thalia-en = aura-prime Aria) and rate.
// Interleaved, alternating which goes first, so load and warm-up hit both alike.
// In-process app on real SQLite, as the tests build it.
// Run: node --import tsx bench/speak-flush.ts   (RUNS, default 9)
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { median, postTimed, table } from './lib.js';
import { createTestAccount, createTestApp } from '../test/helpers/app.js';

const RUNS = Number(process.env.RUNS ?? 9);
const t = await createTestApp();
await t.app.listen({ port: 0, host: '127.0.0.1' });
const port = (t.app.server.address() as AddressInfo).port;
const { apiKey } = await createTestAccount(t.services, { plan: 'enterprise', credits: 1_000_000_000 });
await t.services.registry.whenReady();
const texts = [
  'Thanks for calling, how can I help you today?',
  'Your order has shipped and should arrive on Tuesday.',
  'I can help you with that right away.',
];

const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/speak?model=aura-2-thalia-en&encoding=linear16&sample_rate=24000`, {
  headers: { authorization: `Token ${apiKey}` },
});
await new Promise((resolve, reject) => {
  ws.once('open', resolve);
  ws.once('error', reject);
});
let onAudio: (() => void) | null = null;
let onFlushed: (() => void) | null = null;
ws.on('message', (data, isBinary) => {
  if (isBinary) {
    onAudio?.();
    onAudio = null;
  } else if (JSON.parse(data.toString()).type === 'Flushed') onFlushed?.();
});

async function socketFirstAudio(text: string): Promise<number> {
  ws.send(JSON.stringify({ type: 'Speak', text }));
  const start = performance.now();
  const first = new Promise<number>((resolve) => (onAudio = () => resolve(performance.now() - start)));
  const flushed = new Promise<void>((resolve) => (onFlushed = resolve));
  ws.send(JSON.stringify({ type: 'Flush' }));
  const ms = await first;
  await flushed;
  return ms;
}

async function streamFirstByte(text: string): Promise<number> {
  const r = await postTimed(
    `http://127.0.0.1:${port}/api/v1/tts/stream`,
    { 'x-api-key': apiKey },
    { text, voice: 'Aria', model: 'aura-prime', sample_rate: 24000 },
  );
  return r.firstByteMs;
}

// Warm-up: voices, workers, the first G.711/resampler tables.
for (const text of texts) {
  await socketFirstAudio(text);
  await streamFirstByte(text);
}
const sock: number[] = [];
const native: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const text = texts[i % texts.length]!;
  if (i % 2) {
    native.push(await streamFirstByte(text));
    sock.push(await socketFirstAudio(text));
  } else {
    sock.push(await socketFirstAudio(text));
    native.push(await streamFirstByte(text));
  }
}
ws.close();
const f = (x: number) => x.toFixed(1);
console.log(
  table([
    {
      path: 'WS /v1/speak: Flush -> first audio frame',
      'median ms': f(median(sock)),
      'min ms': f(Math.min(...sock)),
      'max ms': f(Math.max(...sock)),
      runs: RUNS,
    },
    {
      path: 'POST /api/v1/tts/stream: request -> first byte',
      'median ms': f(median(native)),
      'min ms': f(Math.min(...native)),
      'max ms': f(Math.max(...native)),
      runs: RUNS,
    },
  ]),
);
await t.close();
