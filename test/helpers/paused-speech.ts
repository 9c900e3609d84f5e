// A long recording with known pauses, for where long recordings are cut (test/stt/long-audio-cuts,
// bench/long-cuts.ts): Flite sentences, some spoken in two halves with a silence between them (a
// pause inside a sentence), 0.35-0.8 s apart, over pink noise. Each spoken part's speech span is
// known (its own file, from where it first to where it last rises above 1% of full scale).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { flite, soxConcat } from './speech.js';

const RATE = 16000;
export const PAUSED_PARTS = [
  'The morning train to the city',
  'was late again today.',
  'She bought fresh bread and cheese at the market.',
  'Our neighbors painted their house',
  'a bright yellow color.',
  'The children played football in the park until dark.',
  'He forgot his umbrella',
  'and walked home in the rain.',
  'We watched the boats sail slowly across the harbor.',
  'The library closes early on Sunday afternoons.',
  'My brother is learning',
  'to play the piano this year.',
];
const GAPS = [0.45, 0.8, 0.35, 0.6];
const VOICES = ['slt', 'rms', 'awb'];

export interface PausedSpeech {
  file: string;
  pcm: Int16Array;
  /** What is said, in order. */
  reference: string;
  /** Speech spans of the parts on the recording's timeline, seconds. */
  spans: Array<[number, number]>;
}

const pcmOf = (file: string) => float32ToInt16(decodeWav(readFileSync(file)).channels[0]!);

/** The parts `rounds` times over (voices rotating), noise at `noise` of full scale (0: none). */
export function pausedSpeech(rounds = 3, noise = 0.05): PausedSpeech {
  const files: string[] = [];
  const gaps: number[] = [];
  const said: string[] = [];
  for (let round = 0; round < rounds; round++) {
    PAUSED_PARTS.forEach((p, i) => {
      files.push(flite(p, VOICES[(i + round) % 3]));
      gaps.push(GAPS[(i + round) % GAPS.length]!);
      said.push(p);
    });
  }
  const dir = path.dirname(files[0]!);
  const tag = path.basename(files[0]!, '.wav');
  // soxConcat takes one gap: each part carries its own silence instead.
  const padded = files.map((f, i) => {
    const out = path.join(dir, `${tag}-pad-${i}.wav`);
    execFileSync('sox', [f, out, 'pad', '0', String(i === files.length - 1 ? 0 : gaps[i])]);
    return out;
  });
  const clean = soxConcat(padded, 0);
  const spans: Array<[number, number]> = [];
  let at = 0;
  files.forEach((f, i) => {
    const x = pcmOf(f);
    let a = 0;
    let b = x.length - 1;
    while (a < x.length && Math.abs(x[a]!) < 300) a++;
    while (b > 0 && Math.abs(x[b]!) < 300) b--;
    spans.push([(at + a) / RATE, (at + b) / RATE]);
    at += x.length + Math.round(gaps[i]! * RATE);
  });
  let file = clean;
  if (noise > 0) {
    const seconds = execFileSync('soxi', ['-D', clean], { encoding: 'utf8' }).trim();
    const noiseFile = path.join(dir, `${tag}-noise.wav`);
    file = path.join(dir, `${tag}-noisy.wav`);
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', noiseFile, 'synth', seconds, 'pinknoise', 'vol', String(noise)]);
    execFileSync('sox', ['-m', clean, noiseFile, file]);
  }
  return { file, pcm: pcmOf(file), reference: said.join(' ').toLowerCase().replace(/[.,]/g, ''), spans };
}

/** Each cut (a piece's end but the last's): how far it lies from the nearest speech, seconds (negative: inside a part's speech). */
export function cutMargins(cuts: number[], spans: Array<[number, number]>): number[] {
  return cuts.map((c) => Math.min(...spans.map(([a, b]) => (c < a ? a - c : c > b ? c - b : -Math.min(c - a, b - c)))));
}
