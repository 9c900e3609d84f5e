// Speaker diarization: who spoke when. Each speech segment (a recognizer utterance, long ones cut
// into pieces of about two seconds at word boundaries) is described by the mean and spread of its
// MFCCs plus its median pitch; segments are then merged bottom-up (average-linkage agglomerative
// clustering on standardized features) until the closest clusters are farther apart than a tuned
// threshold. Speakers are numbered 0, 1, ... in order of first appearance. Runs in a worker.
// Written here because no maintained npm package does speaker clustering offline.

import { medianF0 } from '../audio/analysis.js';
import { labelSpans, referencePieces, rmsDistance } from '../audio/speaker-clusters.js';

const RATE = 16000;
const FRAME = 400; // 25 ms
const HOP = 160; // 10 ms
const FFT_SIZE = 512;
const MELS = 26;
const CEPSTRA = 13;
/** Distance (in standardized feature units) above which two clusters are different speakers. */
// Tuned on bench/diarization.ts: the widest one-voice merge is 1.14, the closest two voices 1.30.
export const SPEAKER_THRESHOLD = 1.2;

function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const ncr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = ncr;
      }
    }
  }
}

const hz2mel = (f: number) => 2595 * Math.log10(1 + f / 700);
const mel2hz = (m: number) => 700 * (10 ** (m / 2595) - 1);

const melBank: Float64Array[] = (() => {
  const lo = hz2mel(60);
  const hi = hz2mel(RATE / 2 - 200);
  const pts = Array.from({ length: MELS + 2 }, (_, i) => Math.floor(((FFT_SIZE + 1) * mel2hz(lo + ((hi - lo) * i) / (MELS + 1))) / RATE));
  return Array.from({ length: MELS }, (_, m) => {
    const f = new Float64Array(FFT_SIZE / 2 + 1);
    for (let k = pts[m]!; k < pts[m + 1]!; k++) f[k] = (k - pts[m]!) / Math.max(1, pts[m + 1]! - pts[m]!);
    for (let k = pts[m + 1]!; k < pts[m + 2]!; k++) f[k] = (pts[m + 2]! - k) / Math.max(1, pts[m + 2]! - pts[m + 1]!);
    return f;
  });
})();

/** MFCC frames (c1..c12) of speech frames in [start, end) seconds; silent frames are skipped. */
function mfccFrames(pcm: Int16Array, start: number, end: number): number[][] {
  const out: number[][] = [];
  const re = new Float64Array(FFT_SIZE);
  const im = new Float64Array(FFT_SIZE);
  const from = Math.max(0, Math.floor(start * RATE));
  const to = Math.min(pcm.length, Math.floor(end * RATE));
  for (let s = from; s + FRAME <= to; s += HOP) {
    re.fill(0);
    im.fill(0);
    let energy = 0;
    for (let i = 0; i < FRAME; i++) {
      const prev = s + i > 0 ? pcm[s + i - 1]! : 0;
      const v = ((pcm[s + i]! - 0.97 * prev) / 32768) * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME - 1)));
      re[i] = v;
      energy += v * v;
    }
    if (energy < 1e-5) continue;
    fft(re, im);
    const logMel = melBank.map((f) => {
      let acc = 0;
      for (let k = 0; k < f.length; k++) if (f[k]) acc += f[k]! * (re[k]! ** 2 + im[k]! ** 2);
      return Math.log(acc + 1e-10);
    });
    const c: number[] = [];
    for (let n = 1; n < CEPSTRA; n++) {
      let acc = 0;
      for (let m = 0; m < MELS; m++) acc += logMel[m]! * Math.cos((Math.PI * n * (m + 0.5)) / MELS);
      c.push(acc);
    }
    out.push(c);
  }
  return out;
}

export function segmentFeatures(pcm: Int16Array, start: number, end: number): number[] | null {
  const frames = mfccFrames(pcm, start, end);
  if (frames.length < 10) return null;
  const dims = frames[0]!.length;
  const mean = new Array<number>(dims).fill(0);
  const sd = new Array<number>(dims).fill(0);
  for (const f of frames) f.forEach((v, d) => (mean[d]! += v / frames.length));
  for (const f of frames) f.forEach((v, d) => (sd[d]! += (v - mean[d]!) ** 2 / frames.length));
  const slice = pcm.subarray(Math.floor(start * RATE), Math.floor(end * RATE));
  const { f0 } = medianF0(slice, RATE);
  // Pitch separates voices strongly: weighted as several dimensions.
  const pitch = f0 > 0 ? Math.log2(f0 / 100) * 4 : 0;
  return [...mean, ...sd.map(Math.sqrt), pitch, pitch, pitch];
}

/** Feature d's scale: MFCC means, MFCC spreads, then the pitch dimensions. */
function FEATURE_SCALE(d: number): number {
  const mfcc = CEPSTRA - 1;
  if (d < mfcc) return 5;
  if (d < 2 * mfcc) return 3;
  // Pitch weighs double: it is what separates voices of similar timbre (measured in bench/diarization.ts).
  return 0.5;
}

// Fixed scales (typical spread of each feature group across speakers) rather than the data's own
// spread: with few segments, standardizing by their spread would exaggerate differences.
const scaled = (f: number[]) => f.map((v, d) => v / FEATURE_SCALE(d));

/** Cluster labels (0, 1, ... by first appearance) for the segments; null features join their neighbour. */
export function clusterSpeakers(features: Array<number[] | null>, threshold = SPEAKER_THRESHOLD): number[] {
  return labelSpans(
    features.map((f) => f && scaled(f)),
    [],
    [],
    threshold,
    rmsDistance,
  ).labels;
}

export function diarizeSegments(pcm: Int16Array, segments: Array<{ start: number; end: number }>): number[] {
  return clusterSpeakers(segments.map((s) => segmentFeatures(pcm, s.start, s.end)));
}

/**
 * Diarization with known speakers (OpenAI's known_speaker_references, decision #50): each
 * reference's pieces join the clustering as anchors, described by the same features as the
 * segments. A cluster that takes in a reference's pieces (within the same merge threshold as any
 * two segments) is that speaker; two references never merge, so two known voices stay apart.
 * `known[label]` is the index of the reference a label's speaker matched, or -1.
 */
export function diarizeKnown(
  pcm: Int16Array,
  segments: Array<{ start: number; end: number }>,
  references: Int16Array[],
): { labels: number[]; known: number[] } {
  const refs: number[][] = [];
  const refOf: number[] = [];
  references.forEach((r, k) => {
    for (const [a, b] of referencePieces(r.length / RATE)) {
      const f = segmentFeatures(r, a, b);
      if (f) {
        refs.push(f);
        refOf.push(k);
      }
    }
  });
  const features = segments.map((s) => segmentFeatures(pcm, s.start, s.end));
  return labelSpans(
    features.map((f) => f && scaled(f)),
    refs.map(scaled),
    refOf,
    SPEAKER_THRESHOLD,
    rmsDistance,
  );
}
