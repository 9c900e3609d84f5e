// Measurements the TTS engine tests share: F0 over a range wide enough for a voice an octave
// down (src/audio/analysis.ts medianF0 stops at 60 Hz), and how periodic loud frames are.
import { frameF0, rms } from '../../src/audio/analysis.js';

function loudFrames(samples: Int16Array, sampleRate: number): Float32Array[] {
  const frame = Math.round(sampleRate * 0.05);
  const hop = Math.round(sampleRate * 0.04);
  const out: Float32Array[] = [];
  for (let i = 0; i + frame <= samples.length; i += hop) {
    if (rms(samples, i, i + frame) < 0.02) continue;
    const x = new Float32Array(frame);
    for (let k = 0; k < frame; k++) x[k] = samples[i + k]! / 32768;
    out.push(x);
  }
  return out;
}

/** Median F0 (Hz) of the voiced loud frames, searched between 40 and 600 Hz. */
export function medianF0Wide(samples: Int16Array, sampleRate: number): number {
  const f0s = loudFrames(samples, sampleRate)
    .map((x) => frameF0(x, sampleRate, 40, 600).f0)
    .filter((f) => f > 0)
    .sort((a, b) => a - b);
  return f0s.length ? f0s[Math.floor(f0s.length / 2)]! : 0;
}

/** Share of loud frames with a clear period (normalized autocorrelation peak above 0.6). */
export function voicedShare(samples: Int16Array, sampleRate: number): number {
  const frames = loudFrames(samples, sampleRate);
  if (!frames.length) return 0;
  return frames.filter((x) => frameF0(x, sampleRate, 60, 500).f0 > 0).length / frames.length;
}
