// What the output stage (src/audio/dsp/level.ts: DC high-pass, fixed gain, 4x true-peak limiter)
// costs per second of audio, beside the other per-chunk steps it joins: the pitch shift after
// synthesis and the resampling to 24 kHz. eSpeak speech (the native CLI's WAV of a ~20 s text),
// medians of 7 runs, one thread.
// Run: node --import tsx bench/tts-level.ts
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePcm16MonoWav } from '../src/audio/wav.js';
import { level } from '../src/audio/dsp/level.js';
import { pitchShiftFloat } from '../src/audio/dsp/time-pitch.js';
import { resampleInt16 } from '../src/audio/resample.js';
import { table } from './lib.js';

const file = path.join(tmpdir(), `parla-level-${process.pid}.wav`);
execFileSync('espeak-ng', ['-v', 'es+f3', '-w', file, 'Buenos días, el tren sale a las ocho del andén tres. '.repeat(6)]);
const pcm = decodePcm16MonoWav(readFileSync(file))!;
rmSync(file);
const seconds = pcm.samples.length / pcm.sampleRate;
const median = (run: () => unknown) => {
  const t: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    run();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[3]!;
};
const rows = [
  {
    step: 'output stage (level, +8 dB gain: the limiter busy)',
    ms: median(() => level(pcm.samples, pcm.sampleRate, { gainDb: 8, dc: true })),
  },
  { step: 'output stage (level, 0 dB)', ms: median(() => level(pcm.samples, pcm.sampleRate, { gainDb: 0, dc: true })) },
  { step: 'pitch shift +3 st (pitchShiftFloat)', ms: median(() => pitchShiftFloat(pcm.samples, pcm.sampleRate, 3)) },
  { step: 'resample to 24 kHz', ms: median(() => resampleInt16(pcm.samples, pcm.sampleRate, 24000)) },
].map((r) => ({ step: r.step, 'ms per audio second': (r.ms / seconds).toFixed(2) }));
console.log(`${seconds.toFixed(1)} s of eSpeak audio at ${pcm.sampleRate} Hz, ${new Date().toISOString()}\n`);
console.log(table(rows));
