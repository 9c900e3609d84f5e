// G.711 expansion (ITU-T Recommendation G.711): 8-bit mu-law and A-law samples to 16-bit linear
// PCM, for telephone audio streamed to Deepgram's live socket (encoding=mulaw / alaw, e.g. Twilio
// Media Streams). The arithmetic is the reference decoder's (Sun Microsystems' public-domain
// g711.c, ulaw2linear / alaw2linear); each byte is one lookup in a 256-entry table.

function ulawToLinear(u: number): number {
  const v = ~u & 0xff;
  const t = (((v & 0x0f) << 3) + 0x84) << ((v & 0x70) >> 4);
  return v & 0x80 ? 0x84 - t : t - 0x84;
}

function alawToLinear(a: number): number {
  const v = a ^ 0x55;
  let t = (v & 0x0f) << 4;
  const seg = (v & 0x70) >> 4;
  if (seg === 0) t += 8;
  else if (seg === 1) t += 0x108;
  else t = (t + 0x108) << (seg - 1);
  return v & 0x80 ? t : -t;
}

const TABLES = {
  mulaw: Int16Array.from({ length: 256 }, (_, i) => ulawToLinear(i)),
  alaw: Int16Array.from({ length: 256 }, (_, i) => alawToLinear(i)),
};

/** 16-bit little-endian PCM bytes (two per sample) of companded G.711 bytes (one per sample). */
export function expandG711(bytes: Buffer, law: 'mulaw' | 'alaw'): Buffer {
  const t = TABLES[law];
  const out = Buffer.allocUnsafe(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) out.writeInt16LE(t[bytes[i]!]!, i * 2);
  return out;
}
