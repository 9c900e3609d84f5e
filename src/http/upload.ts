// Reading a multipart upload (one file in the field "file", and string fields), for every edge that
// takes one: the batch endpoints and the OpenAI dialect hold the file in memory (readUpload, at most
// 25 MB); a job streams it to disk (src/http/job-body.ts). One loop for both, so the limits, the
// repeated-field rule and the error mapping are written once.

import type { FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { ApiError } from '../errors.js';

export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** Field parts a body may have (the native endpoints' documented fields fit many times over). */
const MAX_FIELDS = 30;
/**
 * On OpenAI's transcriptions: its SDK sends each item of an array field as its own part, and
 * keywords[] may hold 100 items (then the field's own check answers, by name). 160 parts of at most
 * 16 KiB each bound what the fields can hold to 2.5 MiB.
 */
export const OPENAI_MAX_FIELDS = 160;
/** A field part's limit, but for the large fields a reader names (LargeFields). */
const FIELD_BYTES = 16 * 1024;

/**
 * Fields allowed past the 16 KiB part limit (OpenAI's known_speaker_references[]: data URLs of up
 * to 10 s of audio): each at most `maxBytes`, all of them together at most `maxTotal`. Busboy's
 * limit is one number for every part, so it is raised to `maxBytes` and every other field is held
 * to 16 KiB here, as its part arrives (one part in memory at a time past the accepted ones).
 */
export interface LargeFields {
  names: readonly string[];
  maxBytes: number;
  maxTotal: number;
}

const tooLarge = () =>
  new ApiError('FILE_TOO_LARGE', { message: 'The uploaded file is larger than 25 MB.', details: { limit_bytes: MAX_UPLOAD_BYTES } });

/**
 * What went wrong reading the upload, as the client's error: everything in the loop below is
 * reading the client's body, so whatever busboy or @fastify/multipart throws (no boundary, a
 * boundary over busboy's 256-character limit or not in the body, malformed part headers, a body
 * that ends mid-part or a client gone mid-upload) is a 400, never a 500. Busboy's errors carry no
 * code, only a message, and its messages are fixed phrases, never the client's bytes.
 */
export function multipartError(err: unknown, fileTooLarge: () => ApiError = tooLarge): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge();
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
    return new ApiError('INVALID_REQUEST', { message: 'Too many parts in the upload: send one file and the documented fields.' });
  const message = err instanceof Error && err.message ? err.message.slice(0, 200) : 'unknown error';
  const said = message.endsWith('.') ? message.slice(0, -1) : message;
  return new ApiError('INVALID_REQUEST', { message: `The multipart body could not be read: ${said}.`, cause: err });
}

function fieldTooLarge(name: string, limit: number, together = false): ApiError {
  const field = name.replace(/\[\]$/, '').slice(0, 100);
  const what = together ? `All the ${field} parts together are` : `The field ${field} is`;
  return new ApiError('INVALID_PARAMETER', { message: `${what} longer than ${limit} bytes.`, details: { field, limit_bytes: limit } });
}

export interface MultipartReading<F> {
  /** Bytes the file may have (the whole body may have 1 MiB more, for the fields). */
  maxBytes: number;
  /** The client's error for a file over maxBytes. */
  tooLarge: () => ApiError;
  /** Reads the part of the field "file" (the only file read; others are drained). */
  readFile: (part: MultipartFile) => Promise<F>;
  /** Field parts allowed (default 30). */
  maxFields?: number;
  /** Fields allowed past 16 KiB (the body may then be larger by their total). */
  largeFields?: LargeFields;
  /** Runs when reading fails, before the error is thrown (e.g. deletes a file half written). */
  onError?: () => Promise<void>;
}

export interface MultipartBody<F> {
  /** Each field's value; a repeated field (`x` or `x[]`) as one comma-separated list. */
  fields: Map<string, string>;
  file: F | null;
  /** Each part's value under its field name as sent (`keywords[]` stays `keywords[]`), in order. */
  values: Map<string, string[]>;
}

/** The fields and the one file of a multipart body, read as `opts` says. */
export async function readMultipart<F>(request: FastifyRequest, opts: MultipartReading<F>): Promise<MultipartBody<F>> {
  const declared = Number(request.headers['content-length'] ?? 0);
  // A body this large cannot hold a file within the limit: refuse before reading it.
  if (declared > opts.maxBytes + 1024 * 1024 + (opts.largeFields?.maxTotal ?? 0)) throw opts.tooLarge();
  if (!request.isMultipart())
    throw new ApiError('INVALID_REQUEST', { message: 'Send the audio as multipart/form-data with the file in the field "file".' });
  const fields = new Map<string, string>();
  const values = new Map<string, string[]>();
  let file: F | null = null;
  const large = opts.largeFields;
  let largeTotal = 0;
  try {
    const fieldSize = Math.max(FIELD_BYTES, large?.maxBytes ?? 0);
    for await (const part of request.parts({
      limits: { fileSize: opts.maxBytes, files: 1, fields: opts.maxFields ?? MAX_FIELDS, fieldSize },
    })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          continue;
        }
        file = await opts.readFile(part);
      } else if (typeof part.value === 'string') {
        // A value cut at the part limit is never read as if whole: the field is refused by name.
        const isLarge = large?.names.includes(part.fieldname) === true;
        const bytes = Buffer.byteLength(part.value);
        const limit = isLarge ? large!.maxBytes : FIELD_BYTES;
        if (part.valueTruncated || bytes > limit) throw fieldTooLarge(part.fieldname, limit);
        if (isLarge && (largeTotal += bytes) > large!.maxTotal) throw fieldTooLarge(part.fieldname, large!.maxTotal, true);
        // OpenAI-style clients send array fields as repeated `timestamp_granularities[]` parts:
        // repeated values of one field are read as one comma-separated list.
        // (Large fields are read from `values` only: not copied again into one joined string.)
        const name = part.fieldname.replace(/\[\]$/, '');
        const prev = fields.get(name);
        if (!isLarge) fields.set(name, prev === undefined ? part.value : `${prev},${part.value}`);
        // The same parts one by one, for array fields whose items may hold commas (OpenAI's keywords).
        values.set(part.fieldname, [...(values.get(part.fieldname) ?? []), part.value]);
      }
    }
  } catch (err) {
    await opts.onError?.();
    throw multipartError(err, opts.tooLarge);
  }
  return { fields, file, values };
}

/** Reads the fields and the one file into memory; the file is capped at 25 MB while streaming. The batch endpoints and the OpenAI dialect's transcriptions. */
export function readUpload(
  request: FastifyRequest,
  opts: { maxFields?: number; largeFields?: LargeFields } = {},
): Promise<MultipartBody<Buffer>> {
  return readMultipart(request, { maxBytes: MAX_UPLOAD_BYTES, tooLarge, readFile: (part) => part.toBuffer(), ...opts });
}
