// What the client commands of `parla` share: the connection options and the client they make, the
// progress line on stderr, and the batch transcription options with the output of a transcript
// (the same for `transcribe`, `transcribe --async` and `jobs create/result`).

import { readFile, writeFile } from 'node:fs/promises';
import { ParlaClient } from '../../packages/client/src/index.js';
import type { ResponseFormat, SttModel, TranscribeOptions } from '../../packages/client/src/index.js';
import { oneOf, UsageError, type Options } from './args.js';

export const COMMON = {
  'api-key': { type: 'string' },
  url: { type: 'string' },
  'realtime-url': { type: 'string' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

export async function makeClient(values: Record<string, unknown>): Promise<ParlaClient> {
  const apiKey = (values['api-key'] as string | undefined) ?? process.env.PARLA_API_KEY;
  if (!apiKey) throw new UsageError('no API key: pass --api-key or set PARLA_API_KEY');
  const caFile = (values.ca as string | undefined) ?? process.env.PARLA_REALTIME_CA;
  const ca = caFile
    ? await readFile(caFile, 'utf8').catch(() => {
        throw new UsageError(`cannot read the CA certificate ${caFile}`);
      })
    : undefined;
  return new ParlaClient({
    apiKey,
    baseUrl: (values.url as string | undefined) ?? process.env.PARLA_URL ?? 'http://127.0.0.1:8080',
    ...(typeof values['realtime-url'] === 'string' ? { realtimeUrl: values['realtime-url'] } : {}),
    ...(values.insecure ? { realtimeTls: { rejectUnauthorized: false } } : ca ? { realtimeTls: { ca } } : {}),
  });
}

/** A line on stderr with the seconds elapsed (redrawn on a terminal, printed once otherwise). */
export function progress(quiet: boolean) {
  const started = Date.now();
  const tty = process.stderr.isTTY;
  let timer: NodeJS.Timeout | undefined;
  let current = '';
  return {
    start(label: string) {
      if (quiet) return;
      current = label;
      const tick = () => {
        const s = ((Date.now() - started) / 1000).toFixed(0);
        if (tty) process.stderr.write(`\r\x1b[K${current} ${s}s`);
      };
      if (!tty) process.stderr.write(`${label}\n`);
      tick();
      timer = setInterval(tick, 500);
    },
    /** A new label: redrawn on a terminal; printed as a line elsewhere only when it changed. */
    update(label: string) {
      if (quiet || label === current) return;
      current = label;
      if (!tty) process.stderr.write(`${label}\n`);
    },
    stop(final?: string) {
      if (timer) clearInterval(timer);
      if (quiet) return;
      if (tty) process.stderr.write('\r\x1b[K');
      if (final) process.stderr.write(`${final}\n`);
    },
  };
}

export const reportRetry = (attempt: number, delay: number) =>
  process.stderr.write(`\nretrying (${attempt}) in ${(delay / 1000).toFixed(1)}s…\n`);

/** The batch transcription options (synchronous and jobs). */
export const TRANSCRIBE_OPTIONS = {
  output: { type: 'string', short: 'o' },
  format: { type: 'string', short: 'f' },
  model: { type: 'string', short: 'm' },
  language: { type: 'string', short: 'l' },
  prompt: { type: 'string' },
  keywords: { type: 'string' },
  diarize: { type: 'boolean' },
  'smart-format': { type: 'boolean' },
  punctuate: { type: 'boolean' },
  words: { type: 'boolean' },
} as const satisfies Options;

export const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;

/** --format, checked; undefined when not given. */
export function responseFormat(values: Record<string, unknown>): ResponseFormat | undefined {
  const v = values.format as string | undefined;
  return v === undefined ? undefined : oneOf(v, RESPONSE_FORMATS, '--format');
}

/** The API's batch fields from the command line options. */
export function transcribeFields(
  values: Record<string, unknown>,
  format: ResponseFormat | undefined,
): Pick<
  TranscribeOptions,
  'response_format' | 'model' | 'language' | 'prompt' | 'keywords' | 'diarize' | 'smart_format' | 'punctuate' | 'timestamp_granularities'
> {
  return {
    ...(format ? { response_format: format } : {}),
    ...(values.model ? { model: values.model as SttModel } : {}),
    ...(values.language ? { language: values.language as string } : {}),
    ...(values.prompt ? { prompt: values.prompt as string } : {}),
    ...(values.keywords ? { keywords: values.keywords as string } : {}),
    ...(values.diarize ? { diarize: true } : {}),
    ...(values['smart-format'] ? { smart_format: true } : {}),
    ...(values.punctuate ? { punctuate: true } : {}),
    ...(values.words && format === 'verbose_json' ? { timestamp_granularities: 'word' as const } : {}),
  };
}

/** A transcript to -o FILE or stdout: text formats as they are, JSON pretty-printed. */
export async function writeTranscript(values: Record<string, unknown>, result: unknown): Promise<void> {
  const text = typeof result === 'string' ? result : `${JSON.stringify(result, null, 2)}\n`;
  if (values.output) await writeFile(values.output as string, text);
  else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
