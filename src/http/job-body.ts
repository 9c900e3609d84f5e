// Reading POST /api/v1/stt/jobs: multipart with a `file` (streamed to a file under
// <dataDir>/jobs, never held in memory: up to PARLA_JOB_MAX_BYTES) and the fields, or a JSON object
// of the same fields with `url`. Both end as the same map of field strings, so the batch
// endpoints' parser (parseSttFields) validates them.

import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { readMultipart } from './upload.js';
import type { StoredUpload } from '../jobs/service.js';
import { cleanTtsText } from '../tts/clean-text.js';

export interface JobBody {
  fields: Map<string, string>;
  file: StoredUpload | null;
}

const tooLarge = (limit: number) =>
  new ApiError('FILE_TOO_LARGE', {
    message: `The uploaded file is larger than the job limit of ${limit} bytes.`,
    details: { limit_bytes: limit },
  });

/** The fields a JSON body may send as an array of strings (read as a comma-separated list, as in multipart). */
const LIST_FIELDS: ReadonlySet<string> = new Set(['timestamp_granularities', 'keywords']);

/** The fields a job request may carry besides the batch fields. */
export const JOB_FIELDS = ['url', 'callback_url', 'zero_retention'] as const;

/**
 * The request's fields and stored file. On any error a file already written is deleted; on
 * success the caller owns it (and deletes it when no job keeps it).
 */
export async function readJobBody(request: FastifyRequest, opts: { maxBytes: number; dir: string }): Promise<JobBody> {
  if (request.isMultipart()) return readJobMultipart(request, opts);
  const type = String(request.headers['content-type'] ?? '');
  const form = type.toLowerCase().startsWith('application/x-www-form-urlencoded');
  if (!type.toLowerCase().startsWith('application/json') && !form) {
    const sent = type.split(';')[0]!.trim().slice(0, 100) || 'none';
    throw new ApiError('INVALID_REQUEST', {
      message: `Unsupported Content-Type: ${sent}. Send multipart/form-data with the audio in the field "file" (or a "url" field), application/json with "url", or application/x-www-form-urlencoded with "url".`,
      details: { provided: sent },
    });
  }
  // A url-encoded form (src/http/form-body.ts) arrives as an object of strings and string arrays.
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError('INVALID_REQUEST', { message: form ? 'The form body is empty.' : 'The JSON body must be an object.' });
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') fields.set(name, value);
    else if (typeof value === 'boolean' || typeof value === 'number') fields.set(name, String(value));
    else if (LIST_FIELDS.has(name) && Array.isArray(value) && value.every((v) => typeof v === 'string')) fields.set(name, value.join(','));
    else
      throw new ApiError('INVALID_PARAMETER', {
        message: `${name.slice(0, 64)} must be a string, a boolean or a number${LIST_FIELDS.has(name) ? ' or an array of strings' : ''}.`,
        details: { field: name.slice(0, 64) },
      });
  }
  return { fields, file: null };
}

async function readJobMultipart(request: FastifyRequest, opts: { maxBytes: number; dir: string }): Promise<JobBody> {
  const fileTooLarge = () => tooLarge(opts.maxBytes);
  let writing: string | null = null;
  return readMultipart(request, {
    maxBytes: opts.maxBytes,
    tooLarge: fileTooLarge,
    onError: async () => {
      if (writing) await rm(writing, { force: true });
    },
    readFile: async (part): Promise<StoredUpload> => {
      const target = path.join(opts.dir, `upload-${randomBytes(12).toString('hex')}`);
      writing = target;
      const hash = createHash('sha256');
      let bytes = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(part.file, count, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
      if (part.file.truncated) throw fileTooLarge();
      return { path: target, bytes, filename: safeFilename(part.filename), sha256: hash.digest('hex') };
    },
  });
}

/** The client's file name as the job shows it: printable, at most 255 characters, no path. */
function safeFilename(name: string | undefined): string | null {
  if (!name) return null;
  let out = '';
  for (const ch of name.slice(name.lastIndexOf('/') + 1).slice(0, 255)) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x20 && c !== 0x7f && ch !== '\\') out += ch;
  }
  // Lone surrogates too: PostgreSQL's JSONB refuses them (the name is stored in the job's source).
  out = cleanTtsText(out);
  return out === '' ? null : out;
}
