// Test speech: Debian's PocketSphinx recordings with their reference transcripts, and sentences
// spoken by Flite (Debian's flite) made at test time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

export function librivox(): Array<{ file: string; reference: string }> {
  const lines = readFileSync(path.join(LIBRIVOX, 'transcription'), 'utf8').trim().split('\n');
  const ids = readFileSync(path.join(LIBRIVOX, 'fileids'), 'utf8').trim().split('\n');
  return ids.map((id, i) => ({
    file: path.join(LIBRIVOX, `${path.basename(id.trim())}.wav`),
    reference: lines[i]!.replace(/\(.*\)\s*$/, '')
      .replace(/<\/?s>/g, '')
      .trim()
      .toLowerCase(),
  }));
}

const dir = mkdtempSync(path.join(tmpdir(), 'parla-speech-'));
let n = 0;

/** A 16 kHz WAV file of `text` spoken by a Flite voice (kal16, slt, rms, awb). */
export function flite(text: string, voice = 'kal16'): string {
  const raw = path.join(dir, `f${n++}.wav`);
  const out = path.join(dir, `f${n++}.wav`);
  execFileSync('flite', ['-voice', voice, '-t', text, '-o', raw]);
  execFileSync('sox', [raw, '-r', '16000', out]);
  return out;
}

/** A 16 kHz WAV file of `text` spoken by an eSpeak NG voice (e.g. en-us, en-gb, en-us+f3). */
export function espeak(text: string, voice = 'en-us'): string {
  const raw = path.join(dir, `e${n++}.wav`);
  const out = path.join(dir, `e${n++}.wav`);
  execFileSync('espeak-ng', ['-v', voice, '-w', raw, text]);
  execFileSync('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', out]);
  return out;
}

export function soxConcat(files: string[], gapSeconds = 0.6): string {
  const out = path.join(dir, `c${n++}.wav`);
  const silence = path.join(dir, `s${n++}.wav`);
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silence, 'trim', '0', String(gapSeconds)]);
  execFileSync('sox', files.flatMap((f, i) => (i ? [silence, f] : [f])).concat([out]));
  return out;
}

/**
 * `file` (16 kHz mono) with `before`/`after` seconds of silence around it and, with `noise` > 0,
 * white noise of that peak amplitude (full scale 1) over the whole: a room is never digitally silent.
 */
export function padded(file: string, before: number, after: number, noise = 0): string {
  const out = path.join(dir, `p${n++}.wav`);
  execFileSync('sox', [file, out, 'pad', String(before), String(after)]);
  if (noise <= 0) return out;
  const noisy = path.join(dir, `p${n++}.wav`);
  const noiseFile = path.join(dir, `p${n++}.wav`);
  const seconds = execFileSync('soxi', ['-D', out], { encoding: 'utf8' }).trim();
  // -R: the same noise on every run (a repeatable seed).
  execFileSync('sox', ['-R', '-n', '-r', '16000', '-c', '1', '-b', '16', noiseFile, 'synth', seconds, 'whitenoise', 'vol', String(noise)]);
  execFileSync('sox', ['-m', '-v', '1', out, '-v', '1', noiseFile, '-b', '16', noisy]);
  return noisy;
}

export function ffmpegConvert(input: string, ext: string, codecArgs: string[] = []): string {
  const out = path.join(dir, `x${n++}.${ext}`);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', input, ...codecArgs, out]);
  return out;
}

export function words(s: string): string[] {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9' ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

export function wordErrorRate(reference: string, hypothesis: string): number {
  const r = words(reference);
  const h = words(hypothesis);
  const d = Array.from({ length: r.length + 1 }, (_, i) => [i, ...new Array<number>(h.length).fill(0)]);
  for (let j = 1; j <= h.length; j++) d[0]![j] = j;
  for (let i = 1; i <= r.length; i++)
    for (let j = 1; j <= h.length; j++)
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
  return r.length ? d[r.length]![h.length]! / r.length : 0;
}
