// The audio of an input_audio_buffer.append event: standard base64, checked before decoding
// (Buffer.from skips characters it does not know, which would turn garbage into noise silently).

/** The decoded bytes, or the reason the value is not base64 audio (for the error event). */
export function decodeBase64Audio(value: unknown): Buffer | string {
  if (typeof value !== 'string') return 'audio must be a base64 string.';
  // One linear scan; padding only at the end, the length a multiple of 4.
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return 'audio is not valid base64.';
  return Buffer.from(value, 'base64');
}
