// The round trip's listening half for the intelligibility benches (bench/intelligibility.ts,
// bench/premium-tier.ts): a rendering goes to the server's own /api/v1/stt/transcribe, plain text
// (no smart format, no punctuation) for word error rates. A rendering identical to one already
// sent is not sent again: the recognizer is deterministic, so it would get the same words.
import { createHash } from 'node:crypto';
import { postFresh } from './lib.js';
import { multipart } from '../test/helpers/multipart.js';

export interface Transcriber {
  transcribe(wav: Uint8Array): Promise<string>;
  /** Distinct recordings sent so far. */
  readonly sent: number;
}

export function cachedTranscriber(serverUrl: string, headers: Record<string, string>, model: string): Transcriber {
  const heard = new Map<string, Promise<string>>();
  let sent = 0;
  return {
    get sent() {
      return sent;
    },
    transcribe(wav) {
      const key = createHash('sha1').update(wav).digest('hex');
      let t = heard.get(key);
      if (!t) {
        sent++;
        t = multipart(wav, { model, smart_format: 'false', punctuate: 'false' }, 'speech.wav').then(async ({ body, contentType }) => {
          const res = await postFresh(`${serverUrl}/api/v1/stt/transcribe`, { ...headers, 'content-type': contentType }, body);
          if (res.status !== 200) throw new Error(`transcribe: ${res.status} ${res.body}`);
          return (JSON.parse(res.body) as { text: string }).text;
        });
        heard.set(key, t);
      }
      return t;
    },
  };
}
