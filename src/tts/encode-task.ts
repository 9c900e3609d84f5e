// The worker half of a Deepgram speak file ('tts.encode'): join the segments with the break
// silences, resample once to the requested rate, encode (src/audio/speak-encoding.ts). Beside
// finish-task.ts, which does the same for Parla's own file formats.

import { resampleInt16 } from '../audio/resample.js';
import { encodeSpeak, type SpeakEncodeSpec } from '../audio/speak-encoding.js';
import { documentPieces, joinDocument } from './finish-task.js';

export interface EncodePayload {
  segments: Array<Int16Array | null>;
  silences: number[];
  inputRate: number;
  spec: SpeakEncodeSpec;
}

export async function encodeInWorker(p: EncodePayload): Promise<Uint8Array> {
  const joined = joinDocument(documentPieces(p.segments, p.silences, p.inputRate));
  const output = p.inputRate === p.spec.sampleRate ? joined : resampleInt16(joined, p.inputRate, p.spec.sampleRate);
  const bytes = await encodeSpeak(output, p.spec);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
