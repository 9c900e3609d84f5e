// Real-time benchmarks (issue 5): a recorded utterance streamed at real-time pace over wss.
//  - end of speech -> final result (speech_final), and speech start -> first interim result
//  - how many simultaneous streams the machine sustains with finals within 1 s of speech end
// Run: node --import tsx bench/realtime.ts   (ENDPOINTING=200 by default)
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import WebSocket from 'ws';
import { median, startBenchServer, table } from './lib.js';
import { flite } from '../test/helpers/speech.js';
import { decodeWav } from '../src/audio/wav.js';
import { float32ToInt16 } from '../src/audio/pcm.js';

const RUNS = Number(process.env.RUNS ?? 5);
const ENDPOINTING = process.env.ENDPOINTING ?? '200';
// Each live stream keeps a recognizer for its whole life: enough of them for the largest step.
const STEPS = (process.env.STREAMS ?? '1,2,3,4,6').split(',').map(Number);
const server = await startBenchServer({ PARLA_STT_DECODERS: String(Math.max(...STEPS)) });
// A loaded machine may take longer than startBenchServer waits to warm the decoders.
async function info(): Promise<{ port: number }> {
  for (let i = 0; ; i++) {
    try {
      return (await (await fetch(`${server.url}/api/v1/stt/realtime/info`, { headers: { 'x-api-key': server.apiKey } })).json()) as { port: number };
    } catch (err) {
      if (i > 600) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
const health = await info();
const speech = float32ToInt16(decodeWav(readFileSync(flite('Please send the quarterly report to the finance team before noon.'))).channels[0]!);
const speechSeconds = speech.length / 16000;

async function stream(): Promise<{ endToFinal: number; startToInterim: number }> {
  const ws = new WebSocket(`wss://127.0.0.1:${health.port}/api/v1/stt/realtime/stream?api_key=${server.apiKey}&endpointing=${ENDPOINTING}`, { rejectUnauthorized: false });
  await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
  let t0 = 0;
  let firstInterim = 0;
  let finalAt = 0;
  const done = new Promise<void>((resolve) => {
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if (m.type === 'Results' && !m.is_final && !firstInterim) firstInterim = performance.now();
      if (m.type === 'Results' && m.is_final && m.speech_final && m.channel.alternatives[0].transcript) {
        finalAt = performance.now();
        resolve();
      }
    });
  });
  // Speech, then silence, both at real-time pace in 20 ms frames.
  const audio = new Int16Array(speech.length + 16000 * 2);
  audio.set(speech);
  t0 = performance.now();
  for (let i = 0, n = 0; i < audio.length; i += 320, n++) {
    ws.send(Buffer.from(audio.buffer, audio.byteOffset + i * 2, Math.min(320, audio.length - i) * 2));
    const wait = t0 + (n + 1) * 20 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (finalAt) break;
  }
  await done;
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  ws.close();
  // The speech in the file starts about 0.1 s in (Flite's lead-in).
  return { endToFinal: finalAt - (t0 + speechSeconds * 1000), startToInterim: firstInterim - (t0 + 100) };
}

try {
  await stream();
  const end: number[] = [];
  const start: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await stream();
    end.push(r.endToFinal);
    start.push(r.startToInterim);
  }
  const rows: Array<Record<string, string | number>> = [
    { measure: `end of speech -> final (endpointing ${ENDPOINTING} ms)`, median_ms: median(end), goal: '< 300 ms' },
    { measure: 'speech start -> first interim', median_ms: median(start), goal: '< 500 ms' },
  ];
  let sustained = 0;
  for (const n of STEPS) {
    const results = await Promise.all(Array.from({ length: n }, () => stream()));
    const worst = Math.max(...results.map((r) => r.endToFinal));
    if (worst < 1000) sustained = n;
    rows.push({ measure: `${n} simultaneous streams: worst end -> final`, median_ms: worst, goal: '< 1000 ms' });
  }
  rows.push({ measure: 'simultaneous streams sustained (largest step with every final < 1 s)', median_ms: sustained, goal: '' });
  console.log(`Real-time benchmarks, ${new Date().toISOString()}, ${RUNS} runs, medians, load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores\n`);
  console.log(table(rows));
} finally {
  await server.stop();
}
