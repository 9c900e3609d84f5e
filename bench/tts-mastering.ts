// What aura-max's rendering changes against aura-prime, per voice (issue 20, item 2): sample rate,
// integrated loudness (BS.1770, the meter of src/engines/studio/finishing.ts), sample peak, DC
// offset, and energy above 4 and 8 kHz relative to the whole signal (sox `sinc` high-pass, as the
// quality spike measured bandwidth); plus synthesis time per request. Same sentence everywhere.
// Run: node --import tsx bench/tts-mastering.ts
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postTimed, startBenchServer, table } from './lib.js';
import { decodeWav } from '../src/audio/wav.js';
import { integratedLoudness } from '../src/engines/studio/finishing.js';

const TEXT = 'The weather will be sunny with a light breeze this afternoon, and the museum opens at nine.';
const CASES = [
  { voice: 'Aria', language: 'en-US' },
  { voice: 'Stella', language: 'en-US' },
  { voice: 'Orion', language: 'en-US' },
  { voice: 'Miles', language: 'en-US' },
  { voice: 'Anna', language: 'de-DE' },
];
const MODELS = ['aura-prime', 'aura-max'];
const server = await startBenchServer();
const dir = mkdtempSync(path.join(tmpdir(), 'parla-mastering-'));
const db = (x: number) => 20 * Math.log10(x);
try {
  const rows: Array<Record<string, string | number>> = [];
  for (const c of CASES) {
    for (const model of MODELS) {
      const body = { text: TEXT, voice: c.voice, model, language: c.language, format: 'wav' };
      const timed = await postTimed(`${server.url}/api/v1/tts/generate`, { 'x-api-key': server.apiKey }, body);
      const res = await fetch(`${server.url}/api/v1/tts/generate`, {
        method: 'POST',
        headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${model} ${c.voice}: ${res.status} ${await res.text()}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      const file = path.join(dir, `${model}-${c.voice}.wav`);
      writeFileSync(file, bytes);
      const wav = decodeWav(bytes);
      const x = wav.channels[0]!;
      const peak = x.reduce((a, b) => Math.max(a, Math.abs(b)), 0);
      const dc = x.reduce((a, b) => a + b, 0) / x.length;
      const rmsOf = (args: string[]) =>
        Number(/RMS\s+amplitude:\s+([\d.]+)/.exec(spawnSync('sox', [file, '-n', ...args, 'stat'], { encoding: 'utf8' }).stderr)![1]);
      const full = rmsOf([]);
      const above = (hz: number) => (hz < wav.sampleRate / 2 ? db(rmsOf(['sinc', String(hz)]) / full).toFixed(1) : 'none');
      rows.push({
        voice: `${c.voice} (${c.language})`,
        model,
        'rate (Hz)': wav.sampleRate,
        'loudness (LUFS)': integratedLoudness(x, wav.sampleRate).toFixed(1),
        'peak (dBFS)': db(peak).toFixed(1),
        DC: dc.toFixed(4),
        '>4 kHz (dB)': above(4000),
        '>8 kHz (dB)': above(8000),
        'request (ms)': Math.round(timed.totalMs),
      });
      console.log(JSON.stringify(rows.at(-1)));
    }
  }
  console.log(`\n"${TEXT}", ${new Date().toISOString()}\n`);
  console.log(table(rows));
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.stop();
}
