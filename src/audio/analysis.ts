// Measurements on PCM used by tests, benchmarks and diarization: loudness, silent spans, voiced
// duration and the median fundamental frequency.

export function rms(x: Int16Array | Float32Array, start = 0, end = x.length): number {
  let acc = 0;
  const scale = x instanceof Int16Array ? 1 / 32768 : 1;
  for (let i = start; i < end; i++) acc += (x[i]! * scale) ** 2;
  return end > start ? Math.sqrt(acc / (end - start)) : 0;
}

/** Spans (seconds) of at least `minSeconds` where 10 ms windows stay below `threshold` RMS. */
export function silentSpans(
  x: Int16Array,
  sampleRate: number,
  opts: { threshold?: number; minSeconds?: number } = {},
): Array<{ start: number; end: number }> {
  const threshold = opts.threshold ?? 0.01;
  const minSeconds = opts.minSeconds ?? 0.2;
  const win = Math.round(sampleRate * 0.01);
  const spans: Array<{ start: number; end: number }> = [];
  let runStart = -1;
  for (let i = 0; i + win <= x.length; i += win) {
    const quiet = rms(x, i, i + win) < threshold;
    if (quiet && runStart < 0) runStart = i;
    if (!quiet && runStart >= 0) {
      if ((i - runStart) / sampleRate >= minSeconds) spans.push({ start: runStart / sampleRate, end: i / sampleRate });
      runStart = -1;
    }
  }
  if (runStart >= 0 && (x.length - runStart) / sampleRate >= minSeconds)
    spans.push({ start: runStart / sampleRate, end: x.length / sampleRate });
  return spans;
}

/** Seconds from the first to the last non-silent 10 ms window. */
export function speechSpan(x: Int16Array, sampleRate: number, threshold = 0.01): number {
  const win = Math.round(sampleRate * 0.01);
  let first = -1;
  let last = -1;
  for (let i = 0; i + win <= x.length; i += win) {
    if (rms(x, i, i + win) >= threshold) {
      if (first < 0) first = i;
      last = i + win;
    }
  }
  return first < 0 ? 0 : (last - first) / sampleRate;
}

/** Fundamental frequency of one frame by normalized autocorrelation, or 0 when unvoiced. */
export function frameF0(x: Float32Array, sampleRate: number, minHz = 60, maxHz = 500): { f0: number; clarity: number } {
  const minLag = Math.floor(sampleRate / maxHz);
  const maxLag = Math.min(x.length - 1, Math.ceil(sampleRate / minHz));
  let energy = 0;
  for (let i = 0; i < x.length; i++) energy += x[i]! * x[i]!;
  if (energy < 1e-6) return { f0: 0, clarity: 0 };
  let best = 0;
  let bestLag = 0;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let acc = 0;
    let e2 = 0;
    for (let i = 0; i + lag < x.length; i++) {
      acc += x[i]! * x[i + lag]!;
      e2 += x[i + lag]! * x[i + lag]!;
    }
    const r = acc / Math.sqrt(energy * e2 + 1e-12);
    if (r > best) {
      best = r;
      bestLag = lag;
    }
  }
  return best > 0.6 ? { f0: sampleRate / bestLag, clarity: best } : { f0: 0, clarity: best };
}

/** Median F0 over voiced 40 ms frames, and the share of frames that are voiced. */
export function medianF0(samples: Int16Array, sampleRate: number): { f0: number; voicedShare: number } {
  const frame = Math.round(sampleRate * 0.04);
  const hop = Math.round(sampleRate * 0.02);
  const f0s: number[] = [];
  let loud = 0;
  for (let i = 0; i + frame <= samples.length; i += hop) {
    if (rms(samples, i, i + frame) < 0.02) continue;
    loud++;
    const x = new Float32Array(frame);
    for (let k = 0; k < frame; k++) x[k] = samples[i + k]! / 32768;
    const { f0 } = frameF0(x, sampleRate);
    if (f0 > 0) f0s.push(f0);
  }
  f0s.sort((a, b) => a - b);
  return { f0: f0s.length ? f0s[Math.floor(f0s.length / 2)]! : 0, voicedShare: loud ? f0s.length / loud : 0 };
}
