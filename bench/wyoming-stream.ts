// Wyoming's streamed transcript (decision #48) on real speech, side by side with the batch
// recognition the Wyoming edge used before (recognize the whole utterance after audio-stop): the
// LibriVox recordings of Debian's pocketsphinx-testdata sent as a satellite sends them (1024-sample
// chunks at real-time pace), then audio-stop. Per recording:
//  - first transcript-chunk: seconds after the first audio was sent (the recording's length beside);
//  - audio-stop -> transcript (what the user waits for once they stop speaking), against the
//    batch recognition of the same WAV (POST /api/v1/stt/transcribe, the work the old Wyoming
//    path did after audio-stop);
//  - word error rate of the Wyoming transcript and of the batch one against the reference.
// Run: node --import tsx bench/wyoming-stream.ts   (RUNS, default 3; MODEL, default cipher-fast)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeWav } from '../src/audio/wav.js';
import { float32ToInt16 } from '../src/audio/pcm.js';
import { librivox, wordErrorRate } from '../test/helpers/speech.js';
import { multipart } from '../test/helpers/multipart.js';
import { WyomingTestClient } from '../test/helpers/wyoming-client.js';
import { median, table } from './lib.js';
import { startWyomingBenchNode } from './measure/wyoming-node.js';

const RUNS = Number(process.env.RUNS ?? 3);
const MODEL = process.env.MODEL ?? 'cipher-fast';
const CHUNK = 1024;

const node = await startWyomingBenchNode();
const { base, port, apiKey: rawKey } = node;

const recordings = librivox().map((r) => {
  const wav = readFileSync(r.file);
  const pcm = float32ToInt16(decodeWav(wav).channels[0]!);
  return { ...r, wav, pcm: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), seconds: pcm.length / 16000 };
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function wyoming(pcm: Buffer): Promise<{ firstChunk: number; afterStop: number; text: string; chunks: number }> {
  const fmt = { rate: 16000, width: 2, channels: 1 };
  const c = await WyomingTestClient.connect(port);
  c.send('transcribe', { name: MODEL, language: 'en' });
  c.send('audio-start', fmt);
  const t0 = performance.now();
  let firstChunk = NaN;
  void c
    .waitFor((e) => e.type === 'transcript-chunk', 600_000)
    .then(
      () => (firstChunk = (performance.now() - t0) / 1000),
      () => undefined,
    );
  for (let at = 0, k = 0; at < pcm.length; at += CHUNK * 2, k++) {
    c.send('audio-chunk', fmt, pcm.subarray(at, at + CHUNK * 2));
    // Real-time pace, measured from the start (no drift).
    const due = t0 + ((k + 1) * CHUNK * 1000) / 16000;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  const stop = performance.now();
  c.send('audio-stop');
  const tr = await c.waitFor((e) => e.type === 'transcript', 600_000);
  const afterStop = performance.now() - stop;
  c.close();
  return { firstChunk, afterStop, text: tr.data.text, chunks: c.events.filter((e) => e.type === 'transcript-chunk').length };
}

async function batch(wav: Buffer): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const { body, contentType } = await multipart(wav, { model: MODEL, language: 'en' });
  const res = await fetch(`${base}/api/v1/stt/transcribe`, {
    method: 'POST',
    headers: { 'x-api-key': rawKey, 'content-type': contentType },
    body,
  });
  const json = (await res.json()) as { text?: string; transcript?: string };
  return { ms: performance.now() - t0, text: json.text ?? json.transcript ?? '' };
}

await batch(recordings[0]!.wav);
const rows = [];
const all = { first: [] as number[], stop: [] as number[], batch: [] as number[], werW: [] as number[], werB: [] as number[] };
for (const r of recordings) {
  const first: number[] = [];
  const stop: number[] = [];
  const bms: number[] = [];
  let werW = 0;
  let werB = 0;
  let chunks = 0;
  for (let i = 0; i < RUNS; i++) {
    const w = await wyoming(r.pcm);
    const b = await batch(r.wav);
    first.push(w.firstChunk);
    stop.push(w.afterStop);
    bms.push(b.ms);
    werW = wordErrorRate(r.reference, w.text);
    werB = wordErrorRate(r.reference, b.text);
    chunks = w.chunks;
  }
  all.first.push(median(first) / r.seconds);
  all.stop.push(median(stop));
  all.batch.push(median(bms));
  all.werW.push(werW);
  all.werB.push(werB);
  rows.push({
    recording: path.basename(r.file),
    seconds: r.seconds.toFixed(1),
    'first chunk (s)': median(first).toFixed(2),
    chunks,
    'stop -> transcript (ms)': median(stop).toFixed(0),
    'batch (ms)': median(bms).toFixed(0),
    'WER wyoming': werW.toFixed(2),
    'WER batch': werB.toFixed(2),
  });
}
console.log(`RUNS=${RUNS}, MODEL=${MODEL}, medians`);
console.log(table(rows));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `first chunk at ${(median(all.first) * 100).toFixed(0)}% of the recording (median); stop -> transcript ${median(all.stop).toFixed(0)} ms vs batch ${median(all.batch).toFixed(0)} ms (medians); mean WER wyoming ${mean(all.werW).toFixed(3)}, batch ${mean(all.werB).toFixed(3)}`,
);

await node.close();
