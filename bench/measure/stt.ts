// STT measurements shared by bench/stt.ts, bench/headline.ts, bench/cost-growth.ts, bench/stt-engine.ts
// and bench/stt-profiles.ts: one upload to /stt/transcribe (multipart, formatting off),
// `pocketsphinx_continuous -infile` on the same file, and passes of the engine alone over LibriVox.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { median, postFresh, timeIt, type BenchServer } from '../lib.js';
import { multipart } from '../../test/helpers/multipart.js';
import { librivox, wordErrorRate } from '../../test/helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import type { PocketSphinxEngine } from '../../src/engines/pocketsphinx/pocketsphinx-engine.js';

/** POST /stt/transcribe with `file` (formatting and punctuation off): the transcript. */
export async function transcribe(server: BenchServer, file: string, model = 'cipher-max'): Promise<string> {
  const { body, contentType } = await multipart(readFileSync(file), { model, smart_format: 'false', punctuate: 'false' });
  const res = await postFresh(`${server.url}/api/v1/stt/transcribe`, { 'x-api-key': server.apiKey, 'content-type': contentType }, body);
  if (res.status !== 200) throw new Error(`transcribe: ${res.status} ${res.body.slice(0, 300)}`);
  return (JSON.parse(res.body) as { text: string }).text;
}

/** The CLI's transcript of `file` (16 kHz WAV), its default search (the accurate profile's). */
export function pocketsphinxCli(file: string): string {
  const out = execFileSync('pocketsphinx_continuous', ['-infile', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim().split('\n').join(' ');
}

/** Duration of an audio file, seconds (soxi). */
export const seconds = (file: string) => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }));

/** The LibriVox test recordings as 16 kHz PCM, with their total length and word count. */
export function librivoxPcm(): { files: Array<{ file: string; reference: string; pcm: Int16Array }>; audioSeconds: number; words: number } {
  const files = librivox().map((f) => ({ ...f, pcm: float32ToInt16(decodeWav(readFileSync(f.file)).channels[0]!) }));
  return {
    files,
    audioSeconds: files.reduce((s, f) => s + f.pcm.length / 16000, 0),
    words: files.reduce((s, f) => s + f.reference.split(/\s+/).length, 0),
  };
}

/** `runs` passes of the engine over the files with one profile: the median wall time and the word errors of a pass. */
export async function engineRuns(
  engine: PocketSphinxEngine,
  files: Array<{ reference: string; pcm: Int16Array }>,
  profile: string,
  runs: number,
): Promise<{ ms: number; errors: number }> {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < runs; i++) {
    let e = 0;
    const { ms } = await timeIt(async () => {
      for (const f of files) {
        const r = await engine.recognize(f.pcm, { language: 'en', profile });
        e +=
          wordErrorRate(f.reference, r.utterances.flatMap((u) => u.words.map((w) => w.word)).join(' ')) * f.reference.split(/\s+/).length;
      }
    });
    times.push(ms);
    errors = e;
  }
  return { ms: median(times), errors };
}
