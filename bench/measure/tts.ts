// TTS measurements shared by bench/tts.ts, bench/headline.ts and bench/cost-growth.ts: one
// /tts/generate or /tts/stream request over HTTP (node:http, the same client for every side of a
// ratio) and the native CLIs writing the same text to a WAV with the same engine voice.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { postDrain, postTimed, timeIt, type BenchServer } from '../lib.js';

export const SENTENCE = 'The committee reviewed the proposal carefully and agreed to continue the project next quarter. ';
/** `chars` characters of English prose (SENTENCE repeated, cut). */
export const prose = (chars: number) => SENTENCE.repeat(Math.ceil(chars / SENTENCE.length)).slice(0, chars);
export const VOICE = 'Aria';
// Aria is Aura voice aura-01: eSpeak variant f3 with eSpeak pitch 55 on aura-lite, Flite slt on
// aura-prime (src/catalog/data/aura-voices.json). The CLI baselines use the same engine voices.
export const ESPEAK_CLI_ARGS = ['-v', 'en-us+f3', '-p', '55'];
export const FLITE_CLI_VOICE = 'slt';

/** POST /tts/generate (wav) and read the answer to its end. */
export async function generate(server: BenchServer, text: string, model = 'aura-lite'): Promise<void> {
  await postDrain(`${server.url}/api/v1/tts/generate`, { 'x-api-key': server.apiKey }, { text, voice: VOICE, model, format: 'wav' });
}

/** Wall time of one /tts/generate, ms. */
export async function generateMs(server: BenchServer, text: string, model = 'aura-lite'): Promise<number> {
  return (await timeIt(() => generate(server, text, model))).ms;
}

/** POST /tts/stream: time to the first byte of audio and to the end, ms. */
export async function streamTimes(
  server: BenchServer,
  text: string,
  model = 'aura-lite',
): Promise<{ firstByteMs: number; totalMs: number }> {
  const r = await postTimed(
    `${server.url}/api/v1/tts/stream`,
    { 'x-api-key': server.apiKey },
    { text, voice: VOICE, model, sample_rate: 24000 },
  );
  return { firstByteMs: r.firstByteMs, totalMs: r.totalMs };
}

/** Wall time of the espeak-ng CLI writing `text` to a WAV in `dir`, ms. */
export function espeakCliMs(text: string, dir: string): number {
  const t = performance.now();
  execFileSync('espeak-ng', [...ESPEAK_CLI_ARGS, '-w', path.join(dir, 'cli.wav'), text]);
  return performance.now() - t;
}

/** Wall time of the flite CLI (voice slt, as aura-prime's Aria) writing `text` to a WAV in `dir`, ms. */
export function fliteCliMs(text: string, dir: string): number {
  const t = performance.now();
  execFileSync('flite', ['-voice', FLITE_CLI_VOICE, '-t', text, '-o', path.join(dir, 'flite.wav')]);
  return performance.now() - t;
}
