// Live (WebSocket) measurements shared by bench/realtime.ts, bench/headline.ts and
// bench/cost-growth.ts: a recorded utterance (the LibriVox recordings of Debian's
// pocketsphinx-testdata) streamed at real-time pace in 20 ms frames over wss, followed by 1.5 s
// of silence; the time from the end of speech to the first final result after it, and from the
// start of speech to the first interim result. Speech start and end are read from the audio
// itself (energy: see speechBounds), not from the recognizer's word times.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import type { BenchServer } from '../lib.js';
import { librivox } from '../../test/helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

const FRAME = 320; // 20 ms at 16 kHz
const TRAILING_SILENCE = 1.5 * 16000;

export interface Recording {
  name: string;
  pcm: Int16Array;
  /** Seconds from the start of the file. */
  speechStart: number;
  speechEnd: number;
}

/**
 * Speech bounds by energy: the first and last 10 ms frame 10 dB above the recording's noise floor
 * (its quietest tenth of frames). The recordings open with room noise that a threshold relative to
 * the loudest frame takes for speech; these bounds fall within 0.1 s of the recognizer's first
 * word start and last word end (the ends never after it).
 */
function speechBounds(pcm: Int16Array): { start: number; end: number } {
  const rms: number[] = [];
  for (let i = 0; i + 160 <= pcm.length; i += 160) {
    let s = 0;
    for (let j = i; j < i + 160; j++) s += pcm[j]! * pcm[j]!;
    rms.push(Math.sqrt(s / 160));
  }
  const sorted = [...rms].sort((a, b) => a - b);
  const floor = sorted[Math.floor(sorted.length / 10)]!;
  const threshold = floor * 10 ** (10 / 20);
  const first = rms.findIndex((r) => r >= threshold);
  const last = rms.length - 1 - [...rms].reverse().findIndex((r) => r >= threshold);
  return { start: first * 0.01, end: (last + 1) * 0.01 };
}

/** The five LibriVox recordings with their speech bounds. */
export function liveRecordings(): Recording[] {
  return librivox().map((f) => {
    const pcm = float32ToInt16(decodeWav(readFileSync(f.file)).channels[0]!);
    const b = speechBounds(pcm);
    return { name: f.file.replace(/.*-(\d+)\.wav$/, '$1'), pcm, speechStart: b.start, speechEnd: b.end };
  });
}

/** The WebSocket port, once the real-time listener is up (it starts after the HTTP API). */
export async function realtimePort(server: BenchServer): Promise<number> {
  for (let i = 0; i < 120; i++) {
    const res = await fetch(`${server.url}/api/v1/stt/realtime/info`, { headers: { 'x-api-key': server.apiKey } });
    if (!res.ok) throw new Error(`GET /stt/realtime/info answered ${res.status}: ${await res.text()}`);
    const { port } = (await res.json()) as { port: number | null };
    if (port) return port;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the real-time listener did not start within a minute');
}

export interface StreamResult {
  /** ms from the end of speech to the first final result after it. */
  endToFinal: number;
  /** ms from the start of speech to the first interim result. */
  startToInterim: number;
  transcript: string;
}

/** Streams `rec` at real-time pace; `endpointing` as the query sends it (ms). */
export async function liveStream(
  server: BenchServer,
  port: number,
  rec: Recording,
  endpointing: string,
  model = 'cipher-fast',
): Promise<StreamResult> {
  const q = new URLSearchParams({
    api_key: server.apiKey,
    model,
    endpointing,
    interim_results: 'true',
    punctuate: 'false',
    smart_format: 'false',
  });
  const ws = new WebSocket(`wss://127.0.0.1:${port}/api/v1/stt/realtime/stream?${q}`, { rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const audio = new Int16Array(rec.pcm.length + TRAILING_SILENCE);
  audio.set(rec.pcm);
  let t0 = 0;
  let firstInterim = 0;
  let finalAfterEnd = 0;
  const words: string[] = [];
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.on('message', (d) => {
    const now = performance.now();
    const m = JSON.parse(d.toString()) as { type: string; is_final?: boolean; channel?: { alternatives: Array<{ transcript: string }> } };
    if (m.type === 'Error') console.error('stream error:', m);
    if (m.type !== 'Results') return;
    if (!m.is_final && !firstInterim) firstInterim = now;
    if (m.is_final) {
      const text = m.channel!.alternatives[0]!.transcript;
      if (text) words.push(text);
      if (!finalAfterEnd && now >= t0 + rec.speechEnd * 1000) finalAfterEnd = now;
    }
  });
  t0 = performance.now();
  for (let i = 0, n = 0; i < audio.length; i += FRAME, n++) {
    ws.send(Buffer.from(audio.buffer, audio.byteOffset + i * 2, Math.min(FRAME, audio.length - i) * 2));
    const wait = t0 + (n + 1) * 20 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  await closed;
  if (!finalAfterEnd) throw new Error(`no final result after the end of speech (recording ${rec.name})`);
  if (!firstInterim) throw new Error(`no interim result (recording ${rec.name})`);
  return {
    endToFinal: finalAfterEnd - (t0 + rec.speechEnd * 1000),
    startToInterim: firstInterim - (t0 + rec.speechStart * 1000),
    transcript: words.join(' '),
  };
}

/** `n` streams at once (recording i mod 5 each, starting together). */
export function simultaneous(server: BenchServer, port: number, recs: Recording[], n: number, endpointing: string, model?: string) {
  return Promise.all(Array.from({ length: n }, (_, i) => liveStream(server, port, recs[i % recs.length]!, endpointing, model)));
}
