// The Wyoming edge (src/wyoming/, docs/compatibility.md) against the native endpoints for the same
// work: `synthesize` until audio-stop vs POST /api/v1/tts/stream read to its end (same text, voice,
// model, 22,050 Hz), and audio-start/chunks/audio-stop until `transcript` vs POST
// /api/v1/stt/transcribe with the same audio as a WAV (cipher-fast on both). A new connection per
// request on both sides. The Wyoming listener is the server's own WYOMING_PORT, which the runner
// (bench/compat.ts) also sets in its environment.
import { readFileSync } from 'node:fs';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { flite } from '../../test/helpers/speech.js';
import { sendAudio, WyomingTestClient } from '../../test/helpers/wyoming-client.js';
import type { CompatCase, CompatContext } from './types.js';

const TEXT = 'Good morning. The weather today is sunny with a light breeze, and the meeting starts at nine.';
const WAV = readFileSync(flite('The quick brown fox jumps over the lazy dog. Please bring the quarterly report to the meeting.'));
const PCM = (() => {
  const s = float32ToInt16(decodeWav(WAV).channels[0]!);
  return Buffer.from(s.buffer, s.byteOffset, s.byteLength);
})();

function wyomingPort(): number {
  const port = Number(process.env.WYOMING_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('WYOMING_PORT is not set: run this case through bench/compat.ts');
  return port;
}

async function drain(res: Promise<Response>): Promise<void> {
  const r = await res;
  const body = await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${r.url}: ${r.status} ${Buffer.from(body).toString('utf8').slice(0, 200)}`);
}

export const cases: CompatCase[] = [
  {
    name: 'wyoming synthesize (aura-prime:aria, 22,050 Hz = /tts/stream)',
    native: (ctx: CompatContext) =>
      drain(
        fetch(`${ctx.baseUrl}/api/v1/tts/stream`, {
          method: 'POST',
          headers: { 'x-api-key': ctx.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ text: TEXT, voice: 'Aria', model: 'aura-prime', sample_rate: 22050 }),
        }),
      ),
    dialect: async () => {
      const c = await WyomingTestClient.connect(wyomingPort());
      try {
        c.send('synthesize', { text: TEXT, voice: { name: 'aura-prime:aria' } });
        const end = await c.waitFor((e) => e.type === 'audio-stop' || e.type === 'error');
        if (end.type === 'error') throw new Error(`wyoming: ${JSON.stringify(end.data)}`);
      } finally {
        c.close();
      }
    },
  },
  {
    name: 'wyoming transcribe (cipher-fast = /stt/transcribe)',
    native: (ctx: CompatContext) => {
      const form = new FormData();
      form.set('file', new Blob([WAV]), 'audio.wav');
      form.set('model', 'cipher-fast');
      return drain(fetch(`${ctx.baseUrl}/api/v1/stt/transcribe`, { method: 'POST', headers: { 'x-api-key': ctx.apiKey }, body: form }));
    },
    dialect: async () => {
      const c = await WyomingTestClient.connect(wyomingPort());
      try {
        c.send('transcribe', { name: 'cipher-fast' });
        sendAudio(c, PCM, { rate: 16000, width: 2, channels: 1 });
        const end = await c.waitFor((e) => e.type === 'transcript' || e.type === 'error');
        if (end.type === 'error') throw new Error(`wyoming: ${JSON.stringify(end.data)}`);
      } finally {
        c.close();
      }
    },
  },
];
