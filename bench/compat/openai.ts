// The OpenAI dialect (/v1, docs/compatibility.md) against the native endpoints for the same work:
// speech as MP3 (/tts/generate), speech as raw PCM while it is made (/tts/stream, 24 kHz) and a
// transcription as JSON (/stt/transcribe, the model whisper-1 maps to). Plain HTTP on both sides,
// each answer read to its end and checked for 200: the server's cost, not an SDK's.
import { readFileSync } from 'node:fs';
import { flite } from '../../test/helpers/speech.js';
import type { CompatCase, CompatContext } from './types.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs away.';
const WAV = readFileSync(flite('The quick brown fox jumps over the lazy dog.'));

async function drain(res: Promise<Response>): Promise<void> {
  const r = await res;
  const body = await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${r.url}: ${r.status} ${Buffer.from(body).toString('utf8').slice(0, 200)}`);
}

const json = (url: string, headers: Record<string, string>, body: object) =>
  drain(fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }));

function upload(ctx: CompatContext, path: string, headers: Record<string, string>, fields: Record<string, string>): Promise<void> {
  const form = new FormData();
  form.set('file', new Blob([WAV]), 'audio.wav');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return drain(fetch(`${ctx.baseUrl}${path}`, { method: 'POST', headers, body: form }));
}

const bearer = (ctx: CompatContext) => ({ authorization: `Bearer ${ctx.apiKey}` });
const native = (ctx: CompatContext) => ({ 'x-api-key': ctx.apiKey });

export const cases: CompatCase[] = [
  {
    name: 'openai speech mp3 (tts-1 alloy = aura-prime Aria)',
    native: (ctx) =>
      json(`${ctx.baseUrl}/api/v1/tts/generate`, native(ctx), { text: TEXT, voice: 'Aria', model: 'aura-prime', format: 'mp3' }),
    dialect: (ctx) =>
      json(`${ctx.baseUrl}/v1/audio/speech`, bearer(ctx), { input: TEXT, voice: 'alloy', model: 'tts-1', response_format: 'mp3' }),
  },
  {
    name: 'openai speech pcm, streamed (= /tts/stream 24 kHz)',
    native: (ctx) =>
      json(`${ctx.baseUrl}/api/v1/tts/stream`, native(ctx), { text: TEXT, voice: 'Aria', model: 'aura-prime', sample_rate: 24000 }),
    dialect: (ctx) =>
      json(`${ctx.baseUrl}/v1/audio/speech`, bearer(ctx), { input: TEXT, voice: 'alloy', model: 'tts-1', response_format: 'pcm' }),
  },
  {
    name: 'openai transcription json (whisper-1 = cipher-max)',
    native: (ctx) => upload(ctx, '/api/v1/stt/transcribe', native(ctx), { model: 'cipher-max' }),
    dialect: (ctx) => upload(ctx, '/v1/audio/transcriptions', bearer(ctx), { model: 'whisper-1' }),
  },
];
