// Mono PCM helpers: conversions, silence, joining, trimming.

export function int16ToFloat32(x: Int16Array): Float32Array {
  const y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i]! / 32768;
  return y;
}

export function float32ToInt16(x: Float32Array | Float64Array): Int16Array {
  const y = new Int16Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = Math.round(x[i]! * 32768);
    y[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return y;
}

export function concatInt16(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function concatFloat32(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function silence(seconds: number, sampleRate: number): Int16Array {
  return new Int16Array(Math.max(0, Math.round(seconds * sampleRate)));
}

/**
 * Removes leading and trailing near-silence (engines pad their output), keeping `keepSeconds`
 * of it, so joined segments are separated by the requested pause rather than engine padding.
 * Returns a view on the same samples (no copy): the caller joins the pieces anyway.
 */
export function trimSilence(x: Int16Array, sampleRate: number, opts: { threshold?: number; keepSeconds?: number } = {}): Int16Array {
  const threshold = opts.threshold ?? 300;
  const keep = Math.round((opts.keepSeconds ?? 0.04) * sampleRate);
  const win = Math.max(1, Math.round(sampleRate * 0.005));
  const loud = (start: number) => {
    let peak = 0;
    for (let i = start; i < Math.min(x.length, start + win); i++) peak = Math.max(peak, Math.abs(x[i]!));
    return peak >= threshold;
  };
  let first = 0;
  while (first < x.length && !loud(first)) first += win;
  if (first >= x.length) return x.subarray(0, 0);
  let last = x.length - win;
  while (last > first && !loud(last)) last -= win;
  return x.subarray(Math.max(0, first - keep), Math.min(x.length, last + win + keep));
}

export function durationSeconds(samples: number, sampleRate: number): number {
  return samples / sampleRate;
}
