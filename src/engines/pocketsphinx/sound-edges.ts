// Word edges beside a pause, moved onto where the sound starts and stops. The acoustic model takes a
// faint edge for silence: a word-final fricative fading out ("himself", "month") was ended 150-170
// ms early, and a word before a pause was sometimes run on into the silence (80 ms late). The
// signal's energy says where the sound is: an edge facing a pause is moved to the first or last
// frame above a level set from the chunk's own loudest frame and its noise floor (decision #94;
// docs/benchmarks.md "Word timings"). Edges between two words that run together are left alone.

/** A word's times on the audio, seconds; null when the aligner could not place it (aligner.ts's AlignedSpan). */
type AlignedSpan = { start: number; end: number } | null;

/** Frame length for the energy track: 5 ms at 16 kHz. */
const FRAME = 80;
/** Sound is what stands above this far below the loudest frame (a fading fricative sits at -40 to -45 dB)... */
const BELOW_PEAK_DB = 48;
/** ...and above twice the noise floor (the 5th percentile of frame levels), for noisy recordings. */
const ABOVE_FLOOR = 2;
/** The farthest an edge is moved, seconds. */
const MAX_SHIFT = 0.3;

function frameLevels(pcm: Int16Array): Float64Array {
  const n = Math.floor(pcm.length / FRAME);
  const levels = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    for (let i = f * FRAME; i < (f + 1) * FRAME; i++) sum += pcm[i]! * pcm[i]!;
    levels[f] = Math.sqrt(sum / FRAME);
  }
  return levels;
}

function soundLevel(levels: Float64Array): number {
  let peak = 0;
  for (const l of levels) peak = Math.max(peak, l);
  const sorted = Float64Array.from(levels).sort();
  const floor = sorted[Math.floor(sorted.length * 0.05)] ?? 0;
  return Math.max(peak * 10 ** (-BELOW_PEAK_DB / 20), floor * ABOVE_FLOOR, 1);
}

/** A quiet stretch this short inside a word's sound does not end it (the closure before a final "th"). */
const BRIDGE = 0.04;

/**
 * `spans` (seconds on `pcm`, in word order; null for a word not placed) with the edges that face a
 * pause (a gap to the neighbouring word, or the audio's start or end) moved onto the sound: a start
 * in silence moves forward to the first loud frame; an end runs on through the word's fading sound
 * (quiet gaps up to BRIDGE bridged) or, when it sits in silence, back to the last loud frame. A
 * start is never moved back into a pause: some voices' pauses carry breath or hiss as loud as a
 * fading fricative, and the aligner's starts were not found late. Shifts stay within MAX_SHIFT and
 * never cross the neighbour or the word's other edge.
 */
export function snapEdgesToSound(pcm: Int16Array, rate: number, spans: AlignedSpan[]): AlignedSpan[] {
  const levels = frameLevels(pcm);
  if (levels.length === 0) return spans;
  const level = soundLevel(levels);
  const frameSec = FRAME / rate;
  const maxFrames = Math.round(MAX_SHIFT / frameSec);
  const bridge = Math.round(BRIDGE / frameSec);
  const loud = (f: number) => f >= 0 && f < levels.length && levels[f]! >= level;
  const toFrame = (t: number) => Math.round(t / frameSec);
  const placed = spans.map((s, i) => (s ? i : -1)).filter((i) => i >= 0);
  const out = spans.map((s) => (s ? { ...s } : null));
  placed.forEach((i, k) => {
    const span = out[i]!;
    const prevEnd = k > 0 ? spans[placed[k - 1]!]!.end : 0;
    const nextStart = k + 1 < placed.length ? spans[placed[k + 1]!]!.start : levels.length * frameSec;
    const first = toFrame(span.start);
    const last = toFrame(span.end) - 1;
    if (last < first) return;
    if ((k === 0 || span.start > prevEnd) && !loud(first)) {
      let f = first;
      while (f < Math.min(last, first + maxFrames) && !loud(f)) f++;
      if (loud(f)) span.start = f * frameSec;
    }
    if (k === placed.length - 1 || span.end < nextStart) {
      const highest = Math.min(toFrame(nextStart) - 1, last + maxFrames);
      let end = -1;
      for (let f = last, quiet = 0; f <= highest && quiet <= bridge; f++) {
        if (loud(f)) [end, quiet] = [f, 0];
        else quiet++;
      }
      if (end < 0) {
        const lowest = Math.max(toFrame(span.start), last - maxFrames);
        for (let f = last; f >= lowest && end < 0; f--) if (loud(f)) end = f;
      }
      if (end >= 0) span.end = (end + 1) * frameSec;
    }
  });
  return out;
}
