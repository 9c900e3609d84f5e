// Client commands of `parla`, on top of the client SDK (packages/client): say, transcribe, listen.
// They read the key and server from --api-key / --url or PARLA_API_KEY / PARLA_URL. The jobs
// commands (and transcribe --async) are in jobs-commands.ts.

import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ParlaError } from '../../packages/client/src/index.js';
import type { AudioFormat, SttModel, TtsModel } from '../../packages/client/src/index.js';
import { oneOf, parse, UsageError } from './args.js';
import {
  COMMON,
  makeClient,
  progress,
  reportRetry,
  responseFormat,
  TRANSCRIBE_OPTIONS,
  transcribeFields,
  writeTranscript,
} from './client-options.js';
import { JOB_OPTIONS, transcribeAsync } from './jobs-commands.js';
import { readStdinAudio } from './stdin-audio.js';

export const DEFAULT_VOICE = 'Aria';

export async function sayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...COMMON,
    output: { type: 'string', short: 'o' },
    voice: { type: 'string', short: 'v' },
    model: { type: 'string', short: 'm' },
    language: { type: 'string', short: 'l' },
    speed: { type: 'string' },
    pitch: { type: 'string' },
    format: { type: 'string', short: 'f' },
  });
  const text = positionals.join(' ');
  if (!text)
    throw new UsageError(
      'usage: parla say "text" -o out.wav [--voice NAME] [--model M] [--language L] [--speed X] [--pitch N] [--format wav|mp3|ogg|flac]',
    );
  const out = (values.output as string | undefined) ?? 'speech.wav';
  const ext = path.extname(out).slice(1).toLowerCase();
  const format = oneOf(
    (values.format as string | undefined) ?? (['wav', 'mp3', 'ogg', 'flac'].includes(ext) ? ext : 'wav'),
    ['wav', 'mp3', 'ogg', 'flac'] as const,
    '--format',
  ) as AudioFormat;
  const num = (name: string) => {
    const v = values[name];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (typeof v !== 'string' || v.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${name} must be a number`);
    return n;
  };
  const speed = num('speed');
  const pitch = num('pitch');
  const client = await makeClient(values);
  const res = await client.tts.generate({
    text,
    voice: (values.voice as string | undefined) ?? DEFAULT_VOICE,
    format,
    ...(values.model ? { model: values.model as TtsModel } : {}),
    ...(values.language ? { language: values.language as string } : {}),
    ...(speed === undefined ? {} : { speed }),
    ...(pitch === undefined ? {} : { pitch }),
  });
  await writeFile(out, res.audio);
  if (!values.quiet)
    process.stderr.write(
      `wrote ${out} (${res.audio.byteLength} bytes, ${res.contentType}); credits used ${res.creditsUsed}, remaining ${res.creditsRemaining}\n`,
    );
  return 0;
}

export async function transcribeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...COMMON,
    ...TRANSCRIBE_OPTIONS,
    ...JOB_OPTIONS,
    async: { type: 'boolean' },
  });
  const file = positionals[0];
  if (!file)
    throw new UsageError(
      'usage: parla transcribe FILE [--format json|text|verbose_json|srt|vtt] [--model M] [--language L] [--diarize] [--keywords a,b] [-o out] [--async [--callback URL] [--wait]]',
    );
  const format = responseFormat(values) ?? 'text';
  if (!values.async) {
    for (const flag of Object.keys(JOB_OPTIONS)) if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with --async`);
  }
  if (values.async) return transcribeAsync(values, { file }, format);
  const size = (
    await stat(file).catch(() => {
      throw new UsageError(`cannot read ${file}`);
    })
  ).size;
  const client = await makeClient(values);
  const p = progress(!!values.quiet);
  p.start(`uploading ${(size / 1e6).toFixed(1)} MB and transcribing…`);
  let result: unknown;
  try {
    result = await client.stt.transcribe(file, { ...transcribeFields(values, format), onRetry: reportRetry });
  } finally {
    p.stop();
  }
  await writeTranscript(values, result);
  return 0;
}

/** Reads a WAV file's format and PCM data (16-bit PCM only: what linear16 streaming sends). */
export function parseWav(buf: Buffer): { sampleRate: number; channels: number; data: Buffer } {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new UsageError('not a WAV file');
  let off = 12;
  let fmt: { sampleRate: number; channels: number; bits: number; format: number } | null = null;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'fmt ')
      fmt = {
        format: buf.readUInt16LE(off + 8),
        channels: buf.readUInt16LE(off + 10),
        sampleRate: buf.readUInt32LE(off + 12),
        bits: buf.readUInt16LE(off + 22),
      };
    if (id === 'data') {
      if (!fmt || fmt.bits !== 16 || (fmt.format !== 1 && fmt.format !== 0xfffe))
        throw new UsageError('parla listen streams 16-bit PCM WAV (convert with: sox in.wav -b 16 out.wav)');
      return { sampleRate: fmt.sampleRate, channels: fmt.channels, data: buf.subarray(off + 8, Math.min(buf.length, off + 8 + size)) };
    }
    off += 8 + size + (size % 2);
  }
  throw new UsageError('WAV file has no data chunk');
}

export async function listenCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...COMMON,
    model: { type: 'string', short: 'm' },
    language: { type: 'string', short: 'l' },
    'sample-rate': { type: 'string' },
    fast: { type: 'boolean' },
    'no-interim': { type: 'boolean' },
  });
  const source = positionals[0] ?? '-';
  let sampleRate = Number((values['sample-rate'] as string | undefined) ?? 16000);
  let pcm: Buffer | null = null;
  if (source !== '-') {
    const wav = parseWav(await readFile(source));
    if (wav.channels !== 1) throw new UsageError('parla listen streams mono audio (convert with: sox in.wav -c 1 out.wav)');
    sampleRate = wav.sampleRate;
    pcm = wav.data;
  }
  // stdin: a piped audio file (found by its first bytes) is decoded; anything else is raw PCM.
  const fromStdin = source === '-' ? await readStdinAudio(process.stdin) : null;
  if (fromStdin?.kind === 'file') {
    if (values['sample-rate'] !== undefined)
      throw new UsageError(`--sample-rate is for raw PCM; stdin holds a ${fromStdin.container} file (its own rate is read)`);
    sampleRate = 16000;
    pcm = fromStdin.pcm;
  }
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48000) throw new UsageError('--sample-rate must be 8000 to 48000');
  const client = await makeClient(values);
  const conn = await client.realtime
    .connect({
      encoding: 'linear16',
      sample_rate: sampleRate,
      interim_results: !values['no-interim'],
      ...(values.model ? { model: values.model as SttModel } : {}),
      ...(values.language ? { language: values.language as string } : {}),
    })
    .catch((err: unknown) => {
      if (!(err instanceof ParlaError) || err.code !== 'TLS_UNTRUSTED_CERTIFICATE') throw err;
      throw new ParlaError({
        status: 0,
        code: err.code,
        category: err.category,
        message: err.message,
        resolution:
          "Trust the server's certificate with --ca FILE (or PARLA_REALTIME_CA=FILE): a server without TLS_CERT_PATH writes its self-signed certificate to data/tls/realtime-cert.pem in its data directory. --insecure skips the check (local testing only).",
        cause: err,
      });
    });
  const tty = process.stdout.isTTY;
  conn.on('interim', (r) => {
    if (tty && r.transcript) process.stdout.write(`\r\x1b[K… ${r.transcript}`);
  });
  conn.on('final', (r) => {
    if (!r.transcript) return;
    process.stdout.write(`${tty ? '\r\x1b[K' : ''}[${r.start.toFixed(2)}s] ${r.transcript}\n`);
  });
  conn.on('error', (e) => process.stderr.write(`error: ${e.describe()}\n`));
  const chunkBytes = Math.round(sampleRate * 0.1) * 2;
  const sendPaced = async (data: Buffer) => {
    const t0 = Date.now();
    for (let off = 0, n = 0; off < data.length; off += chunkBytes, n++) {
      conn.write(data.subarray(off, off + chunkBytes));
      if (!values.fast) {
        const due = t0 + (n + 1) * 100;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  if (pcm) await sendPaced(pcm);
  else if (fromStdin?.kind === 'raw') for await (const chunk of fromStdin.chunks) conn.write(chunk);
  const summary = await conn.close();
  if (summary && !values.quiet) process.stderr.write(`${JSON.stringify(summary)}\n`);
  return 0;
}

export function describeClientError(err: unknown): string | null {
  if (err instanceof ParlaError) return err.describe();
  return null;
}
