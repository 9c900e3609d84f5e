// Deepgram's REST speak against the native endpoints for the same work, plain fetch on both sides:
// - linear16 WAV at the engine's own rate (16 kHz: aura-prime is Flite) vs /tts/generate WAV;
// - raw linear16 at 24 kHz vs /tts/stream at 24 kHz (both resample the engine's audio).
// Deepgram's MP3 exists only at 22.05 kHz, which no native request makes (its MP3 is at the
// engine's rate), so an MP3 case would time a resampling the native side never does; it is left
// out here (docs/benchmarks.md gives its figure beside these).
import type { CompatCase, CompatContext } from './types.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs away.';

async function drain(res: Response): Promise<void> {
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
}

const native = (path: string, extra: Record<string, unknown>) => async (ctx: CompatContext) =>
  drain(
    await fetch(`${ctx.baseUrl}/api/v1/tts/${path}`, {
      method: 'POST',
      headers: { 'x-api-key': ctx.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT, voice: 'Aria', model: 'aura-prime', ...extra }),
    }),
  );

const dialect = (query: string) => async (ctx: CompatContext) =>
  drain(
    await fetch(`${ctx.baseUrl}/v1/speak?model=aura-2-thalia-en&${query}`, {
      method: 'POST',
      headers: { authorization: `Token ${ctx.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT }),
    }),
  );

export const cases: CompatCase[] = [
  {
    name: 'speak linear16 WAV, 16 kHz (= /tts/generate wav)',
    native: native('generate', { format: 'wav' }),
    dialect: dialect('encoding=linear16&container=wav&sample_rate=16000'),
  },
  {
    name: 'speak linear16 raw, 24 kHz (= /tts/stream 24 kHz)',
    native: native('stream', { sample_rate: 24000 }),
    dialect: dialect('encoding=linear16&container=none&sample_rate=24000'),
  },
];
