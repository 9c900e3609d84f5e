// Reads the metadata (ModelProto.metadata_props) of an ONNX file without loading the model: the
// format of a model folder is decided from it (a streaming Zipformer CTC model and a NeMo CTC model
// are both one model.onnx plus tokens.txt), and files that are not ONNX at all are refused before
// sherpa-onnx's native loader sees them.
// Hand-written on purpose: the npm ONNX readers (onnx-proto over protobufjs, onnxruntime-node) decode
// or load the whole graph (up to 1.5 GB for real models); this walks the top-level protobuf fields
// with positional reads and skips the graph by its length, reading a few hundred bytes in all.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export class OnnxReadError extends Error {}

/** ModelProto field numbers (onnx.proto). */
const METADATA_PROPS = 14;
const MAX_ENTRY_BYTES = 4 << 20;

export function readOnnxMetadata(file: string): Record<string, string> {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) throw new OnnxReadError(`${file} is empty`);
    const meta: Record<string, string> = {};
    let pos = 0;
    let sawGraph = false;
    while (pos < size) {
      const tag = varintAt(fd, pos, size, file);
      pos = tag.next;
      const field = Math.floor(tag.value / 8);
      const wire = tag.value % 8;
      if (field === 0) throw new OnnxReadError(`${file} is not an ONNX model (bad field)`);
      if (wire === 0) pos = varintAt(fd, pos, size, file).next;
      else if (wire === 1) pos += 8;
      else if (wire === 5) pos += 4;
      else if (wire === 2) {
        const len = varintAt(fd, pos, size, file);
        pos = len.next;
        if (pos + len.value > size) throw new OnnxReadError(`${file} is not an ONNX model (truncated)`);
        if (field === 7) sawGraph = true;
        if (field === METADATA_PROPS) {
          if (len.value > MAX_ENTRY_BYTES) throw new OnnxReadError(`${file}: a metadata entry is too large`);
          const buf = Buffer.alloc(len.value);
          readSync(fd, buf, 0, len.value, pos);
          const [k, v] = stringPair(buf, file);
          meta[k] = v;
        }
        pos += len.value;
      } else throw new OnnxReadError(`${file} is not an ONNX model (wire type ${wire})`);
    }
    if (pos !== size || !sawGraph) throw new OnnxReadError(`${file} is not an ONNX model${sawGraph ? ' (truncated)' : ' (no graph)'}`);
    return meta;
  } finally {
    closeSync(fd);
  }
}

function varintAt(fd: number, pos: number, size: number, file: string): { value: number; next: number } {
  const buf = Buffer.alloc(10);
  const n = readSync(fd, buf, 0, Math.min(10, size - pos), pos);
  return varint(buf.subarray(0, n), 0, file, pos);
}

/** Multiplication rather than bit shifts: lengths of large models pass 2^31. */
function varint(buf: Buffer, at: number, file: string, base = 0): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 8 && at + i < buf.length; i++) {
    const b = buf[at + i]!;
    value += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return { value, next: base + at + i + 1 };
  }
  throw new OnnxReadError(`${file} is not an ONNX model (bad varint)`);
}

/** StringStringEntryProto: key = 1, value = 2. */
function stringPair(buf: Buffer, file: string): [string, string] {
  let key = '';
  let value = '';
  let at = 0;
  while (at < buf.length) {
    const tag = varint(buf, at, file);
    at = tag.next;
    if (tag.value % 8 !== 2) throw new OnnxReadError(`${file}: malformed metadata entry`);
    const len = varint(buf, at, file);
    at = len.next;
    if (at + len.value > buf.length) throw new OnnxReadError(`${file}: malformed metadata entry`);
    const text = buf.toString('utf8', at, at + len.value);
    if (tag.value >> 3 === 1) key = text;
    else if (tag.value >> 3 === 2) value = text;
    at += len.value;
  }
  return [key, value];
}
