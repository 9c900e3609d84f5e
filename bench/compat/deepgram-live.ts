// Deepgram's live socket (WS /v1/listen, through the official @deepgram/sdk) against the native
// real-time socket for the same recording (two Flite sentences with a pause, then a second of
// silence; 16 kHz linear16 in 100 ms frames), both on the real-time TLS port, streamed as fast as
// the server accepts it (not at real-time pace; the server's backpressure paces the client), then
// CloseStream: the case's time is until the last final result and the close. Same session, same
// recognizer, same endpointing (300 ms), no interim results: the difference is the dialect's cost.
// Exported for a compat runner (bench/compat/types.ts); run alone it starts an in-process app on
// real SQLite and prints medians: node --import tsx bench/compat/deepgram-live.ts   (RUNS, default 5)
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { DeepgramClient } from '@deepgram/sdk';
import type { CompatCase, CompatContext } from './types.js';
import { flite, soxConcat } from '../../test/helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

const FRAME_SAMPLES = 1600;

function recording(): Buffer[] {
  const wav = decodeWav(
    readFileSync(soxConcat([flite('Good morning, the meeting starts at nine.'), flite('Please bring the quarterly report.')], 1.0)),
  );
  const speech = float32ToInt16(wav.channels[0]!);
  const pcm = new Int16Array(speech.length + 16000);
  pcm.set(speech);
  const frames: Buffer[] = [];
  for (let i = 0; i < pcm.length; i += FRAME_SAMPLES) {
    const part = pcm.subarray(i, i + FRAME_SAMPLES);
    frames.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  }
  return frames;
}

let frames: Buffer[] | null = null;
const audio = () => (frames ??= recording());

/** Fails the run when the stream did not recognize the recording (a fast wrong answer is no result). */
function checkFinals(finals: string[]): void {
  const said = finals.join(' ').toLowerCase();
  if (!said.includes('morning') || !said.includes('report')) throw new Error(`unexpected transcript: "${said}"`);
}

async function native(ctx: CompatContext): Promise<void> {
  const q = new URLSearchParams({ api_key: ctx.apiKey, model: 'cipher-fast', interim_results: 'false', endpointing: '300' });
  const ws = new WebSocket(`${ctx.realtimeUrl}?${q}`, { ca: ctx.ca });
  const finals: string[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as { type: string; is_final?: boolean; channel?: { alternatives: Array<{ transcript: string }> } };
    if (m.type === 'Results' && m.is_final && m.channel!.alternatives[0]!.transcript) finals.push(m.channel!.alternatives[0]!.transcript);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  for (const f of audio()) ws.send(f);
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  const code = await closed;
  if (code !== 1000) throw new Error(`native stream closed with ${code}`);
  checkFinals(finals);
}

async function dialect(ctx: CompatContext): Promise<void> {
  const client = new DeepgramClient({ apiKey: ctx.apiKey, baseUrl: new URL(ctx.realtimeUrl).origin });
  const socket = await client.listen.v1.connect({
    model: 'base',
    encoding: 'linear16',
    sample_rate: 16000,
    interim_results: 'false',
    endpointing: 300,
    reconnectAttempts: 0,
    agent: new https.Agent({ ca: ctx.ca }),
  });
  const finals: string[] = [];
  socket.on('message', (m) => {
    if (m.type === 'Results' && m.is_final && m.channel.alternatives[0]!.transcript) finals.push(m.channel.alternatives[0]!.transcript);
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (e) => resolve(e.code)));
  socket.connect();
  await socket.waitForOpen();
  for (const f of audio()) socket.sendMedia(f);
  socket.sendCloseStream({ type: 'CloseStream' });
  const code = await closed;
  if (code !== 1000) throw new Error(`/v1/listen stream closed with ${code}`);
  checkFinals(finals);
}

export const cases: CompatCase[] = [{ name: 'live transcription (recording, as fast as accepted, to the last final)', native, dialect }];

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { createTestAccount, createTestApp } = await import('../../test/helpers/app.js');
  const { RealtimeServer } = await import('../../src/realtime/server.js');
  const { median, table } = await import('../lib.js');
  const RUNS = Number(process.env.RUNS ?? 5);
  const t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const rt = new RealtimeServer(t.services, { recognizerWaitMs: 10_000 });
  const rtPort = await rt.listen(0, '127.0.0.1');
  const { apiKey } = await createTestAccount(t.services, { plan: 'enterprise', credits: 1_000_000_000 });
  await t.services.registry.whenReady();
  const ctx: CompatContext = {
    baseUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
    apiKey,
    realtimeUrl: `wss://127.0.0.1:${rtPort}/api/v1/stt/realtime/stream`,
    ca: rt.cert,
  };
  const rows: Array<Record<string, string | number>> = [];
  for (const c of cases) {
    // Warm-up: the recognizer, the VAD module, the TLS session.
    await c.native(ctx);
    await c.dialect(ctx);
    const n: number[] = [];
    const d: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating which goes first cancels any order effect.
      for (const [fn, into] of i % 2
        ? ([
            [c.native, n],
            [c.dialect, d],
          ] as const)
        : ([
            [c.dialect, d],
            [c.native, n],
          ] as const)) {
        const start = performance.now();
        await fn(ctx);
        into.push(performance.now() - start);
      }
    }
    const nm = median(n);
    const dm = median(d);
    rows.push({
      case: c.name,
      'native median ms': nm.toFixed(0),
      '/v1/listen median ms': dm.toFixed(0),
      'dialect adds': `${(((dm - nm) / nm) * 100).toFixed(1)}%`,
    });
  }
  console.log(`RUNS=${RUNS}, audio ${((audio().length * FRAME_SAMPLES) / 16000).toFixed(1)} s`);
  console.log(table(rows));
  await rt.close();
  await t.close();
}
