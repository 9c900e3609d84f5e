// The built-in sample the loading check runs a model on: a few seconds of speech-like sound (a
// voice-like pulse train at a gliding pitch through changing vowel resonances, in syllable-long
// bursts). It is no speech, so it says nothing about accuracy; it makes a recogniser do the work of
// real audio of that length, which is what the real-time factor measures.

export function speechLikeSamples(seconds: number, sampleRate = 16000): Float32Array {
  const n = Math.round(seconds * sampleRate);
  const out = new Float32Array(n);
  // Formant pairs of a few vowels (Hz): /a/, /i/, /u/, /e/, /o/.
  const vowels = [
    [730, 1090],
    [270, 2290],
    [300, 870],
    [530, 1840],
    [570, 840],
  ] as const;
  const res = [resonator(), resonator()];
  let phase = 0;
  let seed = 7;
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    const syllable = Math.floor(t * 4);
    const [f1, f2] = vowels[syllable % vowels.length]!;
    const f0 = 110 + 25 * Math.sin(2 * Math.PI * 0.7 * t);
    phase += f0 / sampleRate;
    const pulse = phase >= 1 ? 1 : 0;
    if (phase >= 1) phase -= 1;
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const noise = (seed / 0x7fffffff - 0.5) * 0.02;
    const v = res[0]!(pulse, f1, 80, sampleRate) + 0.6 * res[1]!(pulse, f2, 100, sampleRate);
    const envelope = Math.max(0, Math.sin(Math.PI * ((t * 4) % 1))) ** 0.5;
    out[i] = Math.max(-1, Math.min(1, 0.25 * v * envelope + noise));
  }
  return out;
}

/** A two-pole resonator (formant filter), normalised to roughly unit peak gain. */
function resonator() {
  let y1 = 0;
  let y2 = 0;
  return (x: number, freq: number, bandwidth: number, rate: number): number => {
    const r = Math.exp((-Math.PI * bandwidth) / rate);
    const a1 = 2 * r * Math.cos((2 * Math.PI * freq) / rate);
    const a2 = -r * r;
    const y = (1 - r) * x + a1 * y1 + a2 * y2;
    y2 = y1;
    y1 = y;
    return y * 4;
  };
}

export const SAMPLE_SENTENCE = 'The quick brown fox jumps over the lazy dog. This is a test of the voice.';
