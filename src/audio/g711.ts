// G.711 companding (ITU-T Recommendation G.711, 1988): 16-bit linear PCM to 8-bit mu-law (North
// America, Japan) and A-law (Europe), the telephone encodings Deepgram's speak API offers
// (mulaw, alaw). The segment arithmetic follows the reference implementation published with the
// recommendation (Sun Microsystems' g711.c, public domain). Each sample is one lookup in a 64 KiB
// table built on first use, so companding a stream costs no more than copying it.

let ulawTable: Uint8Array | null = null;
let alawTable: Uint8Array | null = null;

const ULAW_BIAS = 0x84;
const ULAW_CLIP = 32635;

function linearToUlaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(ULAW_CLIP, sign ? -sample : sample) + ULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Segment ends of the 13-bit A-law magnitude (G.711 table 1a). */
const ALAW_SEG_END = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function linearToAlaw(sample: number): number {
  let pcm = sample >> 3;
  let mask: number;
  if (pcm >= 0) mask = 0xd5;
  else {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  let seg = 0;
  while (seg < 8 && pcm > ALAW_SEG_END[seg]!) seg++;
  if (seg >= 8) return 0x7f ^ mask;
  const aval = (seg << 4) | (seg < 2 ? (pcm >> 1) & 0x0f : (pcm >> seg) & 0x0f);
  return aval ^ mask;
}

function table(law: 'mulaw' | 'alaw'): Uint8Array {
  if (law === 'mulaw' && ulawTable) return ulawTable;
  if (law === 'alaw' && alawTable) return alawTable;
  const t = new Uint8Array(65536);
  const f = law === 'mulaw' ? linearToUlaw : linearToAlaw;
  for (let i = 0; i < 65536; i++) t[i] = f(i >= 32768 ? i - 65536 : i);
  if (law === 'mulaw') ulawTable = t;
  else alawTable = t;
  return t;
}

/** Companded bytes (one per sample) of 16-bit linear PCM. */
export function compand(samples: Int16Array, law: 'mulaw' | 'alaw'): Buffer {
  const t = table(law);
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = t[samples[i]! & 0xffff]!;
  return out;
}

/** Companded bytes of raw s16le PCM bytes (an odd trailing byte is ignored: the caller keeps it). */
export function compandBytes(pcm: Buffer, law: 'mulaw' | 'alaw'): Buffer {
  const n = pcm.length >> 1;
  const t = table(law);
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) out[i] = t[pcm.readUInt16LE(i * 2)]!;
  return out;
}
