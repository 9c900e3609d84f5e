// Where to cut a long recording into pieces that are recognized in parallel (docs/stt.md "Long
// recordings"): at pauses the voice activity detector found, preferring the longest pause near the
// target piece length, so no word is cut. Both sides of a cut are decoded a little past it
// (PAUSE_OVERLAP_SECONDS): the recognizer then hears a quiet word end the VAD took for silence
// and the silence after it (measured on LibriVox: without it the word before a cut was sometimes
// lost). Only when no pause of at least MIN_PAUSE_SECONDS lies within the bounds (continuous
// speech, music, steady noise) is a piece cut hard, and then decoded HARD_OVERLAP_SECONDS past the
// cut on both sides so that the word on it is heard whole by one of them. Either way the joiner
// keeps each word from the piece that owns its middle (join.ts).
// Pure arithmetic on the VAD's frame flags (Silero's or WebRTC's): the VAD itself runs in a pool
// worker (plan-task.ts).

export interface Piece {
  /** Samples this piece owns: a word decoded by two pieces belongs to the one its middle falls in. */
  start: number;
  end: number;
  /** Samples decoded: the owned range, widened by the overlap at each cut. */
  decodeStart: number;
  decodeEnd: number;
}

/**
 * A client's own cutting rules (OpenAI's chunking_strategy server_vad, docs/compatibility.md):
 * the shortest pause to cut in and how far past a cut in a pause each side is decoded.
 */
export interface CutRules {
  minPauseSeconds?: number;
  pauseOverlapSeconds?: number;
  /** WebRTC VAD mode 0-3 (3 calls the most audio non-speech), when WebRTC's VAD cuts. */
  vadMode?: number;
  /** Silero's speech probability threshold (0-1), when Silero cuts (plan-task.ts). */
  threshold?: number;
}

export interface PlanOptions extends Omit<CutRules, 'vadMode' | 'threshold'> {
  sampleRate: number;
  /** Samples per VAD frame (20 ms at 16 kHz: 320). */
  frameSamples: number;
  /** Target length of a piece, seconds. */
  pieceSeconds: number;
}

/** Shortest run of non-speech frames taken as a pause to cut in (WebRTC's VAD hangover included). */
export const MIN_PAUSE_SECONDS = 0.2;
/** A cut in a pause is decoded this much past it on both sides. */
export const PAUSE_OVERLAP_SECONDS = 0.5;
/** A hard cut (no pause) is decoded this much past it on both sides. */
export const HARD_OVERLAP_SECONDS = 1.5;
/** A pause counts up to this long: longer ones are all equally safe to cut in. */
const PAUSE_CAP_SECONDS = 1;

interface Pause {
  /** Sample at the middle of the pause: where the cut goes. */
  cut: number;
  seconds: number;
}

/** Runs of at least MIN_PAUSE_SECONDS of non-speech frames, in order. */
function pausesOf(speech: ArrayLike<number | boolean>, o: PlanOptions): Pause[] {
  const minFrames = Math.max(1, Math.ceil(((o.minPauseSeconds ?? MIN_PAUSE_SECONDS) * o.sampleRate) / o.frameSamples));
  const out: Pause[] = [];
  let runStart = -1;
  for (let i = 0; i <= speech.length; i++) {
    const quiet = i < speech.length && !speech[i];
    if (quiet && runStart < 0) runStart = i;
    if (!quiet && runStart >= 0) {
      const frames = i - runStart;
      if (frames >= minFrames)
        out.push({ cut: Math.round(((runStart + i) / 2) * o.frameSamples), seconds: (frames * o.frameSamples) / o.sampleRate });
      runStart = -1;
    }
  }
  return out;
}

/**
 * The pieces of a recording of `totalSamples` samples, given the VAD's flag for each frame (truthy:
 * speech). Pieces are between half and one and a half times the target long (the last one may be
 * shorter), cover the recording without gaps and in order.
 */
export function planPieces(speech: ArrayLike<number | boolean>, totalSamples: number, o: PlanOptions): Piece[] {
  const target = Math.round(o.pieceSeconds * o.sampleRate);
  const min = Math.round(target / 2);
  const max = Math.round(target * 1.5);
  const overlapOf = (hard: boolean) =>
    Math.round((hard ? HARD_OVERLAP_SECONDS : (o.pauseOverlapSeconds ?? PAUSE_OVERLAP_SECONDS)) * o.sampleRate);
  const pauses = pausesOf(speech, o);
  const cuts: Array<{ at: number; hard: boolean }> = [];
  let pos = 0;
  let p = 0;
  while (totalSamples - pos > max) {
    const remaining = totalSamples - pos;
    // Near the end, aim at halves rather than leave a stub of a last piece.
    const ideal = pos + (remaining < max + min ? Math.round(remaining / 2) : target);
    const lo = pos + min;
    const hi = Math.min(pos + max, totalSamples - min);
    while (p < pauses.length && pauses[p]!.cut < lo) p++;
    let best: Pause | null = null;
    let bestScore = -Infinity;
    for (let k = p; k < pauses.length && pauses[k]!.cut <= hi; k++) {
      const pause = pauses[k]!;
      // A long pause is worth a piece a little off the target; distance costs up to 1 at the bounds.
      const score = Math.min(pause.seconds, PAUSE_CAP_SECONDS) / PAUSE_CAP_SECONDS - Math.abs(pause.cut - ideal) / (max - min);
      if (score > bestScore) {
        bestScore = score;
        best = pause;
      }
    }
    const cut = best ? { at: best.cut, hard: false } : { at: ideal, hard: true };
    cuts.push(cut);
    pos = cut.at;
  }
  const pieces: Piece[] = [];
  let start = 0;
  let before = 0;
  for (let i = 0; i <= cuts.length; i++) {
    const cut = cuts[i];
    const end = cut ? cut.at : totalSamples;
    const after = cut ? overlapOf(cut.hard) : 0;
    pieces.push({ start, end, decodeStart: Math.max(0, start - before), decodeEnd: Math.min(totalSamples, end + after) });
    start = end;
    before = after;
  }
  return pieces;
}
