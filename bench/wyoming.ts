// The Wyoming edge against the native endpoints for the same work, side by side in one process
// (one set of services, the API on HTTP and Wyoming on TCP, taking turns):
//  - synthesis: `synthesize` until audio-stop vs POST /api/v1/tts/stream read to its end (same
//    text, voice, model and 22,050 Hz), and time to the first audio byte of each;
//  - transcription: audio-start/chunks/audio-stop until `transcript` vs POST /api/v1/stt/transcribe
//    with the same audio as a WAV upload.
// Run: node --import tsx bench/wyoming.ts   (RUNS, default 7; PARLA_WORKERS as for the server)
import { readFileSync } from 'node:fs';
import { decodeWav } from '../src/audio/wav.js';
import { float32ToInt16 } from '../src/audio/pcm.js';
import { flite } from '../test/helpers/speech.js';
import { multipart } from '../test/helpers/multipart.js';
import { sendAudio, WyomingTestClient } from '../test/helpers/wyoming-client.js';
import { median, table } from './lib.js';
import { startWyomingBenchNode } from './measure/wyoming-node.js';

const RUNS = Number(process.env.RUNS ?? 7);
const TEXT = 'Good morning. The weather today is sunny with a light breeze, and the meeting starts at nine.';

const node = await startWyomingBenchNode();
const { base, port, apiKey: rawKey } = node;

const wav = readFileSync(flite('The quick brown fox jumps over the lazy dog. Please bring the quarterly report to the meeting.'));
const pcm = float32ToInt16(decodeWav(wav).channels[0]!);
const pcmBuf = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

async function wySynth(): Promise<{ first: number; total: number }> {
  const t0 = performance.now();
  const c = await WyomingTestClient.connect(port);
  c.send('synthesize', { text: TEXT, voice: { name: 'aura-prime:aria' } });
  await c.waitFor((e) => e.type === 'audio-chunk');
  const first = performance.now() - t0;
  await c.waitFor((e) => e.type === 'audio-stop');
  const total = performance.now() - t0;
  c.close();
  return { first, total };
}

async function nativeSynth(): Promise<{ first: number; total: number }> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/tts/stream`, {
    method: 'POST',
    headers: { 'x-api-key': rawKey, 'content-type': 'application/json' },
    body: JSON.stringify({ text: TEXT, voice: 'Aria', model: 'aura-prime', sample_rate: 22050 }),
  });
  const reader = res.body!.getReader();
  let first = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!first && value.length) first = performance.now() - t0;
  }
  return { first, total: performance.now() - t0 };
}

async function wyTranscribe(): Promise<number> {
  const t0 = performance.now();
  const c = await WyomingTestClient.connect(port);
  c.send('transcribe', {});
  sendAudio(c, pcmBuf, { rate: 16000, width: 2, channels: 1 });
  await c.waitFor((e) => e.type === 'transcript');
  c.close();
  return performance.now() - t0;
}

async function nativeTranscribe(): Promise<number> {
  const t0 = performance.now();
  const { body, contentType } = await multipart(wav, {});
  const res = await fetch(`${base}/api/v1/stt/transcribe`, {
    method: 'POST',
    headers: { 'x-api-key': rawKey, 'content-type': contentType },
    body,
  });
  await res.arrayBuffer();
  return performance.now() - t0;
}

// Warm-up: each path once.
await wySynth();
await nativeSynth();
await wyTranscribe();
await nativeTranscribe();

const r = {
  wyFirst: [] as number[],
  wyTotal: [] as number[],
  nFirst: [] as number[],
  nTotal: [] as number[],
  wyStt: [] as number[],
  nStt: [] as number[],
};
for (let i = 0; i < RUNS; i++) {
  // Alternating order, so neither side always runs on a cooler machine.
  const pair = i % 2 === 0 ? [wySynth, nativeSynth] : [nativeSynth, wySynth];
  for (const f of pair) {
    const x = await f();
    if (f === wySynth) r.wyFirst.push(x.first), r.wyTotal.push(x.total);
    else r.nFirst.push(x.first), r.nTotal.push(x.total);
  }
  const pair2 = i % 2 === 0 ? [wyTranscribe, nativeTranscribe] : [nativeTranscribe, wyTranscribe];
  for (const f of pair2) (f === wyTranscribe ? r.wyStt : r.nStt).push(await f());
}

const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)}%`;
console.log(`RUNS=${RUNS}, PARLA_WORKERS=${node.services.config.workerThreads}, medians in ms`);
console.log(
  table([
    {
      work: 'TTS first audio',
      wyoming: median(r.wyFirst).toFixed(1),
      native: median(r.nFirst).toFixed(1),
      difference: pct(median(r.wyFirst), median(r.nFirst)),
    },
    {
      work: 'TTS whole text',
      wyoming: median(r.wyTotal).toFixed(1),
      native: median(r.nTotal).toFixed(1),
      difference: pct(median(r.wyTotal), median(r.nTotal)),
    },
    {
      work: 'STT transcript',
      wyoming: median(r.wyStt).toFixed(1),
      native: median(r.nStt).toFixed(1),
      difference: pct(median(r.wyStt), median(r.nStt)),
    },
  ]),
);

await node.close();
