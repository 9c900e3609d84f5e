// What POST /v1/listen's body is, for the answer now (listen-routes.ts) and the answer by callback
// (listen-callback.ts) alike: audio bytes (any Content-Type but JSON), or {"url": ...} as JSON;
// raw linear16 given a WAV header; the request the STT service is asked.

import { webcrypto } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { wavHeader } from '../../audio/wav.js';
import { MAX_UPLOAD_BYTES } from '../../http/upload.js';
import type { SttRequest } from '../../stt/request.js';
import type { ListenParams } from './listen-params.js';

/** A {"url"} body is a few hundred bytes; anything near this is not one. */
export const MAX_JSON_BODY = 64 * 1024;

export const tooLarge = () =>
  new ApiError('FILE_TOO_LARGE', { message: 'The audio is larger than 25 MB.', details: { limit_bytes: MAX_UPLOAD_BYTES } });

export const noAudio = () =>
  new ApiError('MISSING_FILE', {
    message: 'The request has no audio: send the audio bytes as the body, or {"url": "..."} as JSON.',
    resolution: 'Send the audio as the request body (e.g. Content-Type: audio/wav).',
  });

export function isJsonRequest(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The URL of a {"url": ...} body; a 400 naming the field for any other JSON. */
export function audioUrlOf(body: unknown): string {
  const url = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).url : undefined;
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ApiError('INVALID_REQUEST', {
      message: 'A JSON body must be {"url": "<http(s) URL of the audio>"}; to send audio, send its bytes with its own Content-Type.',
      details: { field: 'url' },
    });
  }
  return url.trim();
}

/**
 * encoding=linear16 with headerless bytes (Deepgram's raw PCM upload): a WAV header from
 * sample_rate and channels is put in front, so the decoder reads it as it reads any WAV. Bytes that
 * are a container already (RIFF, or anything else) go to the decoder as they are, which sniffs
 * the format, as Deepgram does.
 */
export function withContainer(audio: Buffer, p: Pick<ListenParams, 'encoding' | 'sampleRate' | 'channels'>): Buffer {
  if (p.encoding !== 'linear16' || audio.toString('latin1', 0, 4) === 'RIFF') return audio;
  if (p.sampleRate === undefined)
    throw new ApiError('INVALID_PARAMETER', {
      message: 'sample_rate is required with encoding=linear16 (raw PCM has no header to read it from).',
      details: { field: 'sample_rate' },
    });
  const channels = p.channels ?? 1;
  // A partial last frame is dropped: a WAV's data is whole frames.
  const usable = audio.length - (audio.length % (2 * channels));
  return Buffer.concat([wavHeader(p.sampleRate, usable, channels), audio.subarray(0, usable)]);
}

/** Hex SHA-256 of the audio, on libuv's thread pool (WebCrypto's digest), not the event loop. */
export async function sha256(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

/** The STT service's request for a /v1/listen query (redaction is the caller's: see listen-routes.ts). */
export function listenRequest(p: ListenParams): SttRequest {
  return {
    model: p.model,
    language: p.language,
    responseFormat: 'json',
    prompt: undefined,
    granularities: [],
    diarize: p.diarize,
    smartFormat: p.smartFormat,
    punctuate: p.punctuate,
    keywords: p.keywords,
  };
}
