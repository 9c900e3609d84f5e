// OpenAI's known_speaker_names[] / known_speaker_references[] (decision #50): up to four names, each
// with a data URL of 2-10 s of that speaker's voice in any format an upload may have. Checked here
// as far as the text goes (counts, names, the data URL's form and size); the audio itself is decoded
// in the bounded decoder processes, as uploads are, and its length checked there (SttService).

import { ApiError } from '../../errors.js';
import type { LargeFields } from '../../http/upload.js';

export const MAX_KNOWN_SPEAKERS = 4;
const MAX_NAME_LENGTH = 64;
/**
 * The largest reference: 10 s of 16-bit PCM WAV at 48 kHz stereo (the largest uncompressed form in
 * common use; compressed formats need far less) with room for its header, in base64.
 */
const MAX_REFERENCE_AUDIO_BYTES = 10 * 48000 * 2 * 2 + 4096;
const MAX_REFERENCE_URL_BYTES = 4 * Math.ceil(MAX_REFERENCE_AUDIO_BYTES / 3) + 256;

/** The multipart reader's allowance for the references (src/http/upload.ts): the only parts over 16 KiB. */
export const REFERENCE_FIELDS: LargeFields = {
  names: ['known_speaker_references[]', 'known_speaker_references'],
  maxBytes: MAX_REFERENCE_URL_BYTES,
  maxTotal: MAX_KNOWN_SPEAKERS * MAX_REFERENCE_URL_BYTES,
};

export interface KnownSpeaker {
  name: string;
  /** The reference's audio bytes, as the data URL held them. */
  audio: Uint8Array;
}

const invalid = (field: string, message: string, provided?: string) =>
  new ApiError('INVALID_PARAMETER', {
    message,
    details: { field, ...(provided !== undefined ? { provided: provided.slice(0, 100) } : {}) },
  });

/** The bytes of a base64 data URL holding audio (any audio or video type, or none). */
function dataUrlBytes(url: string, index: number): Uint8Array {
  const field = 'known_speaker_references';
  const at = `known_speaker_references[${index}]`;
  // The header is short: looked for in the first characters only, never matched over the payload.
  const comma = url.slice(0, 200).indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw invalid(field, `${at} must be a data URL (data:audio/wav;base64,...).`, url);
  const params = url.slice(5, comma).split(';');
  const mime = params[0]!.trim().toLowerCase();
  if (params[params.length - 1]!.trim().toLowerCase() !== 'base64' || params.length < 2)
    throw invalid(field, `${at} must be a base64 data URL (data:audio/wav;base64,...).`, url);
  if (mime !== '' && !/^(audio|video|application)\/[a-z0-9.+-]{1,60}$/.test(mime))
    throw invalid(field, `${at} must hold audio (data:audio/...), not ${mime.slice(0, 60)}.`, url);
  const payload = url.slice(comma + 1);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) throw invalid(field, `${at} is not valid base64.`, url);
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length === 0) throw invalid(field, `${at} holds no audio.`, url);
  if (bytes.length > MAX_REFERENCE_AUDIO_BYTES)
    throw invalid(field, `${at} is larger than ${MAX_REFERENCE_AUDIO_BYTES} bytes (10 s of 48 kHz stereo WAV).`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The known speakers of a request, or [] when neither field was sent. Both fields go together, one
 * name per reference, and only with response_format=diarized_json (the one answer that carries
 * speakers: a name given for any other would be ignored, and no field is ignored in silence).
 */
export function parseKnownSpeakers(names: string[] | undefined, references: string[] | undefined, format: string): KnownSpeaker[] {
  if (names === undefined && references === undefined) return [];
  if (names === undefined || names.length === 0)
    throw invalid('known_speaker_names', 'known_speaker_names[] is required with known_speaker_references[] (one name per reference).');
  if (references === undefined || references.length === 0)
    throw invalid('known_speaker_references', 'known_speaker_references[] is required with known_speaker_names[] (one data URL per name).');
  if (format !== 'diarized_json')
    throw invalid(
      'known_speaker_names',
      'known_speaker_names[] is only used with response_format=diarized_json (the answer that labels speakers).',
      format,
    );
  if (names.length > MAX_KNOWN_SPEAKERS)
    throw invalid('known_speaker_names', `known_speaker_names[] may list at most ${MAX_KNOWN_SPEAKERS} speakers.`);
  if (references.length !== names.length)
    throw invalid(
      'known_speaker_references',
      `known_speaker_references[] must hold one reference per name: ${names.length} names, ${references.length} references.`,
    );
  const seen = new Set<string>();
  const out: KnownSpeaker[] = [];
  names.forEach((raw, i) => {
    const name = raw.trim();
    // Short identifiers (customer, agent), as OpenAI asks; no control characters in a label a client prints.
    if (name === '' || name.length > MAX_NAME_LENGTH || /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name))
      throw invalid(
        'known_speaker_names',
        `Each name must have 1 to ${MAX_NAME_LENGTH} printable characters (known_speaker_names[${i}]).`,
        raw,
      );
    if (seen.has(name)) throw invalid('known_speaker_names', `known_speaker_names[] names "${name}" twice.`, raw);
    seen.add(name);
    out.push({ name, audio: dataUrlBytes(references[i]!, i) });
  });
  return out;
}
