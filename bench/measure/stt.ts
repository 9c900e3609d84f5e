// STT measurements shared by bench/stt.ts, bench/headline.ts and bench/cost-growth.ts: one upload to
// /stt/transcribe (multipart, formatting off) and `pocketsphinx_continuous -infile` on the same file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { postFresh, type BenchServer } from '../lib.js';
import { multipart } from '../../test/helpers/multipart.js';

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
