// Where to cut a recording into pieces for an offline model: at pauses, from the voice activity of
// 20 ms frames (the WebRTC VAD the real-time socket uses). Offline models decode a piece at a time:
// Whisper only ever reads the first 30 s of what it is given, and every model's memory grows with
// the piece, so pieces are at most `maxFrames` long (cut at the longest pause in their second
// half, else hard). Audio with no speech is not decoded at all (Whisper invents words on silence).

export interface FrameSpan {
  /** First frame, inclusive. */
  start: number;
  /** Last frame, exclusive. */
  end: number;
}

/** Pauses shorter than this (frames) stay inside a piece. */
const JOIN_GAP = 25;
/** Frames of context kept around speech on each side. */
const PAD = 10;

export function speechPieces(speech: boolean[], maxFrames: number): FrameSpan[] {
  const n = speech.length;
  const runs: FrameSpan[] = [];
  for (let i = 0; i < n; ) {
    if (!speech[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && speech[j]) j++;
    const last = runs[runs.length - 1];
    if (last && i - last.end < JOIN_GAP) last.end = j;
    else runs.push({ start: i, end: j });
    i = j;
  }
  const padded: FrameSpan[] = [];
  for (const r of runs) {
    const s = { start: Math.max(0, r.start - PAD), end: Math.min(n, r.end + PAD) };
    const last = padded[padded.length - 1];
    if (last && s.start <= last.end) last.end = s.end;
    else padded.push(s);
  }
  const out: FrameSpan[] = [];
  for (const p of padded) {
    let start = p.start;
    while (p.end - start > maxFrames) {
      const cut = quietestCut(speech, start + Math.floor(maxFrames / 2), start + maxFrames);
      out.push({ start, end: cut });
      start = cut;
    }
    out.push({ start, end: p.end });
  }
  return out;
}

/** The middle of the longest run of non-speech frames in [from, to), or `to` when there is none. */
function quietestCut(speech: boolean[], from: number, to: number): number {
  let best = -1;
  let bestLen = 0;
  let runStart = -1;
  for (let i = from; i <= to; i++) {
    const quiet = i < to && !speech[i];
    if (quiet && runStart < 0) runStart = i;
    if (!quiet && runStart >= 0) {
      if (i - runStart > bestLen) {
        bestLen = i - runStart;
        best = runStart + Math.floor((i - runStart) / 2);
      }
      runStart = -1;
    }
  }
  return best > from ? best : to;
}
