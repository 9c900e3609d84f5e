// Byte builders for hostile inputs: multipart bodies written by hand (so a case can break any
// part of them) and WAV files whose header fields may lie about the data.

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

const BOUNDARY = '----parlaHostileBoundary7MA4YWxkTrZu0gW';

export function multipartBody(parts: MultipartPart[], boundary = BOUNDARY): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head, 'utf8'), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface WavFields {
  pcm: Buffer;
  channels?: number;
  sampleRate?: number;
  bits?: number;
  format?: number;
  /** Values written into the header instead of the true ones. */
  riffSize?: number;
  fmtSize?: number;
  dataSize?: number;
}

/** A canonical 44-byte-header WAV (PCM 16-bit mono 16 kHz unless told otherwise). */
export function wav(f: WavFields): Buffer {
  const channels = f.channels ?? 1;
  const rate = f.sampleRate ?? 16000;
  const bits = f.bits ?? 16;
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(f.riffSize ?? 36 + f.pcm.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(f.fmtSize ?? 16, 16);
  h.writeUInt16LE(f.format ?? 1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(((rate * channels * bits) / 8) >>> 0, 28);
  h.writeUInt16LE(((channels * bits) / 8) & 0xffff, 32);
  h.writeUInt16LE(bits, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(f.dataSize ?? f.pcm.length, 40);
  return Buffer.concat([h, f.pcm]);
}

export function silenceWav(seconds: number, rate = 16000): Buffer {
  return wav({ pcm: Buffer.alloc(Math.round(seconds * rate) * 2), sampleRate: rate });
}
