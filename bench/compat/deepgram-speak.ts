// Deepgram's REST speak against the native /api/v1/tts/generate for the same text and format:
// POST /v1/speak (linear16 WAV, resampled to Deepgram's default 24 kHz; MP3 at 22.05 kHz) vs
// /tts/generate (WAV and MP3 at the engine's rate). Plain fetch on both sides.
import type { CompatCase, CompatContext } from './types.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs away.';

async function drain(res: Response): Promise<void> {
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
}

const native = (format: 'wav' | 'mp3') => async (ctx: CompatContext) =>
  drain(await fetch(`${ctx.baseUrl}/api/v1/tts/generate`, { method: 'POST', headers: { 'x-api-key': ctx.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXT, voice: 'Aria', model: 'aura-prime', format }) }));

const dialect = (query: string) => async (ctx: CompatContext) =>
  drain(await fetch(`${ctx.baseUrl}/v1/speak?model=aura-2-thalia-en&${query}`, { method: 'POST', headers: { authorization: `Token ${ctx.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXT }) }));

export const cases: CompatCase[] = [
  { name: 'speak wav (linear16)', native: native('wav'), dialect: dialect('encoding=linear16&container=wav') },
  { name: 'speak mp3', native: native('mp3'), dialect: dialect('encoding=mp3') },
];
