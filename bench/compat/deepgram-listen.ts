// Deepgram's prerecorded POST /v1/listen against the native /api/v1/stt/transcribe for the same
// WAV and the same Parla model (nova-3 maps to cipher-max): plain fetch on both sides, so what
// is timed is the server (the dialect's parsing, hashing and rendering), not an SDK.
import { readFileSync } from 'node:fs';
import { flite } from '../../test/helpers/speech.js';
import type { CompatCase, CompatContext } from './types.js';

let wav: Buffer | undefined;
/** The Flite sentence, made once on first use. */
function audio(): Buffer {
  wav ??= readFileSync(flite('The quick brown fox jumps over the lazy dog.'));
  return wav;
}

async function expectOk(res: Response, what: string): Promise<void> {
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${body.slice(0, 200)}`);
}

export const cases: CompatCase[] = [
  {
    name: 'deepgram listen (wav, nova-3 / cipher-max)',
    async native(ctx: CompatContext) {
      const form = new FormData();
      form.set('file', new Blob([audio()]), 'a.wav');
      form.set('model', 'cipher-max');
      form.set('punctuate', 'true');
      form.set('smart_format', 'true');
      await expectOk(
        await fetch(`${ctx.baseUrl}/api/v1/stt/transcribe`, { method: 'POST', headers: { 'x-api-key': ctx.apiKey }, body: form }),
        'native',
      );
    },
    async dialect(ctx: CompatContext) {
      const res = await fetch(`${ctx.baseUrl}/v1/listen?model=nova-3&punctuate=true&smart_format=true`, {
        method: 'POST',
        headers: { authorization: `Token ${ctx.apiKey}`, 'content-type': 'audio/wav' },
        body: audio(),
      });
      await expectOk(res, 'deepgram');
    },
  },
];
