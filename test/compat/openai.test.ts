// The OpenAI dialect through the official `openai` npm client, unchanged but for baseURL and
// apiKey, against a real listening app: speech in every format it supports (checked as real
// audio), both streaming modes, transcription in every response format with word timestamps and
// streaming, the models list, errors as the SDK surfaces them, and credits equal to the native
// endpoints' for the same work.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, wordErrorRate } from '../helpers/speech.js';

let t: TestApp;
let baseURL: string;
let key: string;
let accountId: string;
let client: OpenAI;
let fox: string;
const FOX = 'the quick brown fox jumps over the lazy dog';
// whisper-1 is cipher-max: its accurate profile (word insertion penalty 0.2) hears Flite slt's
// sentence as "jumped so over" or "jumped so for" depending on the decoder's running CMN, i.e. 2 or
// 3 of these 9 words wrong. Speech, not noise, is what the bound checks: silence or noise is ~1.
const FOX_MAX_WER = 0.34;

before(async () => {
  t = await createTestApp({ METRICS_TOKEN: 'operator-token-openai' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseURL = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  client = new OpenAI({ apiKey: key, baseURL, maxRetries: 0 });
  fox = flite('The quick brown fox jumps over the lazy dog.');
  await t.services.registry.whenReady();
});
after(() => t.close());

/** Seconds of audio in a WAV file (from its header and data chunk). */
function wavSeconds(b: Buffer): number {
  assert.equal(b.toString('ascii', 0, 4), 'RIFF');
  assert.equal(b.toString('ascii', 8, 12), 'WAVE');
  const rate = b.readUInt32LE(24);
  const bytesPerSample = b.readUInt16LE(34) / 8;
  return (b.length - 44) / rate / bytesPerSample;
}

/** Counts MPEG audio frames (sync word and a valid header, walking frame by frame) and their seconds. */
function mp3Frames(b: Buffer): { frames: number; seconds: number } {
  let i = b.toString('latin1', 0, 3) === 'ID3' ? 10 + ((b[6]! << 21) | (b[7]! << 14) | (b[8]! << 7) | b[9]!) : 0;
  const rates: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };
  const kbpsV1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
  const kbpsV2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
  let frames = 0;
  let seconds = 0;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff || (b[i + 1]! & 0xe0) !== 0xe0) break;
    const version = (b[i + 1]! >> 3) & 3;
    const rate = rates[version]?.[(b[i + 2]! >> 2) & 3];
    const kbps = (version === 3 ? kbpsV1 : kbpsV2)[b[i + 2]! >> 4];
    if (!rate || !kbps) break;
    const samples = version === 3 ? 1152 : 576;
    const size = Math.floor(((samples / 8) * kbps * 1000) / rate) + ((b[i + 2]! >> 1) & 1);
    frames++;
    seconds += samples / rate;
    i += size;
  }
  return { frames, seconds };
}

async function transcribeText(audio: Buffer): Promise<string> {
  // The answer is checked by the recognizer: a real WAV of what was said.
  const res = await fetch(`${baseURL}/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: (() => {
      const form = new FormData();
      form.set('file', new Blob([audio]), 'x.wav');
      form.set('model', 'whisper-1');
      form.set('response_format', 'text');
      return form;
    })(),
  });
  assert.equal(res.status, 200);
  return res.text();
}

function pcmToWav(pcm: Buffer, rate: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

/** The trailers of a speech request sent with plain http (the SDK does not show trailers). */
function rawSpeech(body: Record<string, unknown>): Promise<Record<string, string | undefined>> {
  return new Promise((resolve, reject) => {
    const u = new URL(`${baseURL}/audio/speech`);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (r) => {
        r.resume();
        r.on('end', () => resolve(r.trailers));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** What ffprobe reads in a file: container, codec and duration (counted from its packets). */
function ffprobe(file: Buffer): { container: string; codec: string; seconds: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'openai-probe-'));
  try {
    const f = path.join(dir, 'audio');
    writeFileSync(f, file);
    const out = JSON.parse(
      execFileSync(
        'ffprobe',
        [
          '-v',
          'error',
          '-show_entries',
          'format=format_name:stream=codec_name,sample_rate,duration_ts,time_base',
          '-show_entries',
          'packet=pts,duration',
          '-of',
          'json',
          f,
        ],
        { encoding: 'utf8' },
      ),
    );
    const stream = out.streams[0];
    // The sum of the packets' durations: exact for Ogg and ADTS alike (an ADTS header has no length).
    const [num, den] = String(stream.time_base).split('/').map(Number) as [number, number];
    const ticks = (out.packets as Array<{ duration?: number }>).reduce((a, p) => a + Number(p.duration ?? 0), 0);
    return { container: out.format.format_name, codec: stream.codec_name, seconds: (ticks * num) / den };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ffmpeg processes of this test process (started by the app's spawner helper, a child of this process). */
function ffmpegChildren(): string[] {
  // Read from /proc rather than with pgrep: a program run synchronously would stall this process,
  // which is also the server, for as long as the busy machine takes to start it.
  const helpers = childPids(String(process.pid));
  return helpers.flatMap(childPids).filter((pid) => readProc(`${pid}/comm`).trim() === 'ffmpeg');
}

/**
 * What one aborted stream of `accountId` cost once its hold is gone: its ledger row (the hold
 * settled) or the balance back at `before` (the hold released, nothing sent). Reading the balance
 * sooner counts the hold as spent.
 */
async function settledStream(accountId: string, before: number): Promise<{ spent: number; ledger: number }> {
  for (let i = 0; i < 200; i++) {
    const rows = (await t.services.store.listUsage(accountId, 'live', 10)).filter((r) => r.kind === 'tts_stream');
    const spent = before - (await t.services.store.getBalance(accountId, 'live'));
    if (rows.length > 0 || spent === 0) return { spent, ledger: rows.reduce((sum, r) => sum + r.credits, 0) };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the stream was neither settled nor released within 10 s');
}

function childPids(pid: string): string[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => readProc(`${pid}/task/${tid}/children`).split(' ').filter(Boolean));
}

function readProc(rel: string): string {
  try {
    return readFileSync(`/proc/${rel}`, 'utf8');
  } catch {
    return '';
  }
}

/** The events of a text/event-stream body. */
function events(text: string): Array<Record<string, any>> {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => JSON.parse(e.slice(6)));
}

describe('speech', () => {
  const input = 'The quick brown fox jumps over the lazy dog.';

  test('wav, mp3, flac and pcm are real audio of a sensible length; the words come back through the recognizer', async () => {
    const wav = Buffer.from(
      await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav' })).arrayBuffer(),
    );
    const wavLen = wavSeconds(wav);
    assert.ok(wavLen > 1.5 && wavLen < 6, String(wavLen));
    const heard = await transcribeText(wav);
    assert.ok(wordErrorRate(FOX, heard) <= FOX_MAX_WER, heard);

    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input });
    assert.equal(res.headers.get('content-type'), 'audio/mpeg');
    const mp3 = mp3Frames(Buffer.from(await res.arrayBuffer()));
    assert.ok(mp3.frames > 20, String(mp3.frames));
    assert.ok(Math.abs(mp3.seconds - wavLen) < 0.5, `${mp3.seconds} vs ${wavLen}`);

    const flac = Buffer.from(
      await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'flac' })).arrayBuffer(),
    );
    assert.equal(flac.toString('ascii', 0, 4), 'fLaC');
    // STREAMINFO: sample rate (20 bits) and total samples (36 bits).
    const rate = (flac[18]! << 12) | (flac[19]! << 4) | (flac[20]! >> 4);
    const total = (flac[21]! & 0x0f) * 2 ** 32 + flac.readUInt32BE(22);
    assert.ok(Math.abs(total / rate - wavLen) < 0.1, `${total / rate} vs ${wavLen}`);

    const pcmRes = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'pcm' });
    assert.equal(pcmRes.headers.get('content-type'), 'audio/pcm');
    const pcm = Buffer.from(await pcmRes.arrayBuffer());
    assert.equal(pcm.length % 2, 0);
    assert.ok(Math.abs(pcm.length / 2 / 24000 - wavLen) < 0.5, `${pcm.length / 48000} vs ${wavLen}`);
    const heardPcm = await transcribeText(pcmToWav(pcm, 24000));
    assert.ok(wordErrorRate(FOX, heardPcm) <= FOX_MAX_WER, heardPcm);
  });

  test('opus and aac: real Ogg Opus and ADTS AAC (ffprobe) of the synthesis length, as a stream and as sse events', async () => {
    const wavLen = wavSeconds(
      Buffer.from(
        await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav' })).arrayBuffer(),
      ),
    );
    const expected = {
      opus: { container: 'ogg', codec: 'opus', type: 'audio/ogg' },
      aac: { container: 'aac', codec: 'aac', type: 'audio/aac' },
    } as const;
    for (const response_format of ['opus', 'aac'] as const) {
      const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format });
      assert.equal(res.headers.get('content-type'), expected[response_format].type);
      const file = Buffer.from(await res.arrayBuffer());
      const probe = ffprobe(file);
      assert.equal(probe.container, expected[response_format].container, response_format);
      assert.equal(probe.codec, expected[response_format].codec, response_format);
      assert.ok(Math.abs(probe.seconds - wavLen) < 0.3, `${response_format}: ${probe.seconds} s vs ${wavLen} s`);

      const sse = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format, stream_format: 'sse' });
      const ev = events(await sse.text());
      assert.equal(ev.at(-1)!.type, 'speech.audio.done');
      assert.ok(ev.length >= 3, `${response_format}: ${ev.length} events`);
      const joined = Buffer.concat(ev.slice(0, -1).map((e) => Buffer.from(e.audio, 'base64')));
      const viaSse = ffprobe(joined);
      assert.equal(viaSse.codec, expected[response_format].codec);
      assert.ok(Math.abs(viaSse.seconds - wavLen) < 0.3, `${response_format} sse: ${viaSse.seconds} s vs ${wavLen} s`);
    }
  });

  test('opus and aac stream as they are made: a long text arrives in several chunks, billed as the native stream (trailer)', async () => {
    const long = Array.from({ length: 8 }, (_, i) => `Sentence number ${i + 1} is spoken here.`).join(' ');
    for (const response_format of ['opus', 'aac'] as const) {
      const res = await client.audio.speech.create({ model: 'tts-1', voice: 'onyx', input: long, response_format, stream_format: 'audio' });
      const parts: Buffer[] = [];
      for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(c));
      assert.ok(parts.length > 3, `${response_format}: ${parts.length} chunks`);
      assert.ok(ffprobe(Buffer.concat(parts)).seconds > 5);
      const trailer = await rawSpeech({ model: 'tts-1', voice: 'onyx', input: long, response_format });
      assert.equal(trailer['x-credits-used'], String([...long].length));
    }
  });

  test('a client that goes away mid-stream: its ffmpeg encoder is killed, and only what was sent is billed', async () => {
    // Near OpenAI's 4,096-character limit: minutes of speech, far more than is made before the
    // client's abort arrives, even on a busy machine.
    const long = Array.from({ length: 75 }, (_, i) => `This is sentence number ${i + 1}, spoken slowly here.`).join(' ');
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 100_000 });
    const before = await t.services.store.getBalance(acct.accountId, 'live');
    const ctl = new AbortController();
    const c = new OpenAI({ apiKey: acct.apiKey, baseURL, maxRetries: 0 });
    const res = await c.audio.speech.create(
      { model: 'tts-1', voice: 'onyx', input: long, response_format: 'opus' },
      { signal: ctl.signal },
    );
    const reader = (res.body as unknown as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    assert.equal(ffmpegChildren().length, 1, 'one encoder while the speech streams');
    ctl.abort();
    await reader.cancel().catch(() => undefined);
    for (let i = 0; i < 100 && ffmpegChildren().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(ffmpegChildren(), []);
    // While the stream runs its hold (the whole text's price) is off the balance: what was charged
    // is known once the hold is settled into a ledger row, or released when nothing was sent.
    const settled = await settledStream(acct.accountId, before);
    assert.ok(settled.spent < [...long].length, `billed ${settled.spent} of ${[...long].length}`);
    assert.equal(settled.spent, settled.ledger, 'the balance and the ledger agree');
  });

  test('voices: every OpenAI voice maps to a Parla voice of the table; Parla names work; unknown is BadRequestError', async () => {
    const table = t.services.config.product.openai.voices;
    // Every voice of the SDK's own union (SpeechCreateParams['voice']), and OpenAI's older ones.
    assert.deepEqual(Object.keys(table).sort(), [
      'alloy',
      'ash',
      'ballad',
      'cedar',
      'coral',
      'echo',
      'fable',
      'marin',
      'nova',
      'onyx',
      'sage',
      'shimmer',
      'verse',
    ]);
    for (const voice of Object.keys(table)) {
      const res = await client.audio.speech.create({
        model: 'gpt-4o-mini-tts',
        voice: voice as 'alloy',
        input: 'Hi.',
        response_format: 'wav',
      });
      assert.ok(wavSeconds(Buffer.from(await res.arrayBuffer())) > 0.1, voice);
    }
    const own = await client.audio.speech.create({ model: 'aura-prime', voice: 'Orion' as 'alloy', input: 'Hi.', response_format: 'wav' });
    assert.equal(own.status, 200);
    await assert.rejects(client.audio.speech.create({ model: 'tts-1', voice: 'nobody' as 'alloy', input: 'Hi.' }), OpenAI.BadRequestError);
    await assert.rejects(
      client.audio.speech.create({ model: 'tts-9', voice: 'alloy', input: 'Hi.' }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && (err.error as any).param === 'model',
    );
  });

  test('speed: 0.25-4.0 accepted and clamped to the engines 0.5-2.0 (X-Parla-Speed), outside refused', async () => {
    const slow = await client.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav', speed: 0.25 })
      .asResponse();
    assert.equal(slow.headers.get('x-parla-speed'), '0.5');
    const fast = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav', speed: 4 }).asResponse();
    assert.equal(fast.headers.get('x-parla-speed'), '2');
    assert.ok(wavSeconds(Buffer.from(await slow.arrayBuffer())) > 2 * wavSeconds(Buffer.from(await fast.arrayBuffer())));
    // null is "not given": speed 1, nothing clamped (the hostile corpus found it refused).
    const unset = await fetch(`${baseURL}/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav', speed: null }),
    });
    assert.equal(unset.status, 200);
    assert.equal(unset.headers.get('x-parla-speed'), null);
    assert.ok(
      Math.abs(
        wavSeconds(Buffer.from(await unset.arrayBuffer())) -
          wavSeconds(
            Buffer.from(
              await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'wav' })).arrayBuffer(),
            ),
          ),
      ) < 0.05,
    );
    for (const speed of [5, 0.2, 'fast']) {
      await assert.rejects(
        client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, speed: speed as number }),
        (err: unknown) => {
          assert.ok(err instanceof OpenAI.BadRequestError);
          assert.match(err.message, /0\.25 to 4\.0/);
          return true;
        },
      );
    }
  });

  test('instructions are accepted (and ignored)', async () => {
    const res = await client.audio.speech.create({
      model: 'gpt-4o-mini-tts',
      voice: 'coral',
      input: 'Hi.',
      instructions: 'Speak cheerfully.',
      response_format: 'wav',
    });
    assert.equal(res.status, 200);
  });

  test('stream_format sse: speech.audio.delta events whose audio joins into the file, then speech.audio.done', async () => {
    for (const response_format of ['pcm', 'mp3'] as const) {
      const res = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input, response_format, stream_format: 'sse' });
      assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
      const ev = events(await res.text());
      assert.ok(ev.length >= 2);
      assert.equal(ev.at(-1)!.type, 'speech.audio.done');
      const deltas = ev.slice(0, -1);
      assert.ok(deltas.every((e) => e.type === 'speech.audio.delta' && typeof e.audio === 'string'));
      const audio = Buffer.concat(deltas.map((e) => Buffer.from(e.audio, 'base64')));
      if (response_format === 'pcm') assert.ok(audio.length / 48000 > 1.5, String(audio.length));
      else assert.ok(mp3Frames(audio).seconds > 1.5);
    }
  });

  test('stream_format audio with pcm: the body arrives in pieces as it is made (a long text, several chunks)', async () => {
    const long = Array.from({ length: 8 }, (_, i) => `Sentence number ${i + 1} is spoken here.`).join(' ');
    const res = await client.audio.speech.create({
      model: 'tts-1',
      voice: 'onyx',
      input: long,
      response_format: 'pcm',
      stream_format: 'audio',
    });
    let chunks = 0;
    let bytes = 0;
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks++;
      bytes += c.length;
    }
    assert.ok(chunks > 1, String(chunks));
    assert.ok(bytes / 48000 > 5, String(bytes));
    // Billed as the native stream: every character of the text, all of it having been sent.
    const trailer = await rawSpeech({ model: 'tts-1', voice: 'onyx', input: long, response_format: 'pcm' });
    assert.equal(trailer['x-credits-used'], String([...long].length));
  });

  test('credits: the same as the native endpoint for the same text and model', async () => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'mp3' });
    const used = Number(res.headers.get('x-credits-used'));
    const native = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tts/generate',
      headers: { 'x-api-key': key },
      payload: { text: input, voice: 'Aria', model: 'aura-prime', format: 'mp3' },
    });
    assert.equal(native.statusCode, 200);
    assert.equal(used, Number(native.headers['x-credits-used']));
    assert.equal(used, [...input].length);
    assert.equal(Number(native.headers['x-credits-remaining']), await t.services.store.getBalance(accountId, 'live'));
  });
});

describe('transcriptions', () => {
  test('json, text, srt, vtt and verbose_json with word and segment timestamps', async () => {
    const json = await client.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1' });
    assert.ok(wordErrorRate(FOX, json.text) <= 0.12, json.text);
    const text = await client.audio.transcriptions.create({
      file: createReadStream(fox),
      model: 'gpt-4o-transcribe',
      response_format: 'text',
    });
    assert.equal(String(text).trim(), json.text);
    const srt = await client.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1', response_format: 'srt' });
    assert.match(String(srt), /^1\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\n\S/);
    const vtt = await client.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1', response_format: 'vtt' });
    assert.match(String(vtt), /^WEBVTT\n\n00:00:0\d\.\d{3} --> /);
    const verbose = await client.audio.transcriptions.create({
      file: createReadStream(fox),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
      language: 'en',
    });
    assert.equal(verbose.language, 'english');
    assert.ok(verbose.duration > 1.5 && verbose.duration < 4);
    assert.ok(verbose.words && verbose.words.length >= 8);
    for (const w of verbose.words!) assert.ok(w.start >= 0 && w.end > w.start && w.end <= verbose.duration + 0.05);
    for (let i = 1; i < verbose.words!.length; i++) assert.ok(verbose.words![i]!.start >= verbose.words![i - 1]!.start);
    assert.ok(verbose.segments && verbose.segments.length >= 1 && verbose.segments[0]!.text.length > 0);
    const wordsOnly = await client.audio.transcriptions.create({
      file: createReadStream(fox),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    });
    assert.equal(wordsOnly.segments, undefined);
  });

  test('stream=true: transcript.text.delta events then transcript.text.done with the whole text', async () => {
    const stream = await client.audio.transcriptions.create({ file: createReadStream(fox), model: 'gpt-4o-mini-transcribe', stream: true });
    let joined = '';
    let done: string | null = null;
    for await (const ev of stream) {
      if (ev.type === 'transcript.text.delta') joined += ev.delta;
      else if (ev.type === 'transcript.text.done') done = ev.text;
    }
    assert.ok(done !== null);
    assert.equal(joined, done);
    assert.ok(wordErrorRate(FOX, done!) <= 0.12, done!);
  });

  test('credits: the same as the native endpoint for the same audio and model', async () => {
    const { data, response } = await client.audio.transcriptions
      .create({ file: createReadStream(fox), model: 'whisper-1', response_format: 'verbose_json' })
      .withResponse();
    const { body, contentType } = await multipart(readFileSync(fox), { model: 'cipher-max' }, 'audio.wav');
    const native = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stt/transcribe',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: body,
    });
    assert.equal(native.statusCode, 200);
    assert.equal(response.headers.get('x-credits-used'), native.headers['x-credits-used']);
    assert.equal(Number(native.headers['x-credits-used']), 2 * Math.ceil(data.duration));
  });

  test('translations: refused in OpenAI shape (no installed model translates)', async () => {
    await assert.rejects(client.audio.translations.create({ file: createReadStream(fox), model: 'whisper-1' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.match(err.message, /no installed speech model can translate/);
      return true;
    });
  });

  test('bad multipart, missing model, missing file and a wrong stream value are 400 in OpenAI shape', async () => {
    const post = (body: string | FormData, type?: string) =>
      fetch(`${baseURL}/audio/transcriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, ...(type ? { 'content-type': type } : {}) },
        body,
      });
    const shape = async (res: Response, status: number) => {
      assert.equal(res.status, status);
      const body = (await res.json()) as any;
      assert.equal(typeof body.error.message, 'string');
      assert.equal(typeof body.error.type, 'string');
      assert.ok('param' in body.error && typeof body.error.code === 'string');
      assert.ok(res.headers.get('x-request-id'));
      return body.error;
    };
    await shape(
      await post('--x\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--x', 'multipart/form-data; boundary=x'),
      400,
    );
    await shape(await post('{"model":"whisper-1"}', 'application/json'), 400);
    const noModel = new FormData();
    noModel.set('file', new Blob([readFileSync(fox)]), 'a.wav');
    assert.equal((await shape(await post(noModel), 400)).param, 'model');
    const noFile = new FormData();
    noFile.set('model', 'whisper-1');
    assert.equal((await shape(await post(noFile), 400)).code, 'missing_file');
    const badStream = new FormData();
    badStream.set('file', new Blob([readFileSync(fox)]), 'a.wav');
    badStream.set('model', 'whisper-1');
    badStream.set('stream', 'perhaps');
    assert.equal((await shape(await post(badStream), 400)).param, 'stream');
  });
});

describe('models and errors', () => {
  test('GET /v1/models lists OpenAI ids and Parla ids in OpenAI shape', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      assert.equal(m.object, 'model');
      assert.equal(m.owned_by, 'parla');
      assert.ok(Number.isInteger(m.created));
      ids.push(m.id);
    }
    for (const id of [
      'tts-1',
      'tts-1-hd',
      'gpt-4o-mini-tts',
      'whisper-1',
      'gpt-4o-transcribe',
      'gpt-4o-mini-transcribe',
      'aura-prime',
      'cipher-fast',
    ])
      assert.ok(ids.includes(id), id);
    assert.equal((await client.models.retrieve('whisper-1')).id, 'whisper-1');
    await assert.rejects(client.models.retrieve('nope'), OpenAI.NotFoundError);
  });

  test('bad key: AuthenticationError 401 with x-request-id; no key: 401', async () => {
    const bad = new OpenAI({ apiKey: 'svc_live_not-a-real-key-000000000000', baseURL, maxRetries: 0 });
    await assert.rejects(bad.models.list(), (err: unknown) => {
      assert.ok(err instanceof OpenAI.AuthenticationError);
      assert.equal(err.status, 401);
      assert.equal((err.error as any).type, 'authentication_error');
      assert.ok(err.requestID || err.headers?.get('x-request-id'));
      return true;
    });
    const res = await fetch(`${baseURL}/models`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as any).error.code, 'auth_missing_api_key');
    // Bearer is the dialect's: the native API still wants X-API-Key.
    assert.equal((await fetch(`${baseURL.replace('/v1', '')}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
  });

  test('no credits: 402 APIError (insufficient_quota)', async () => {
    const poor = await createTestAccount(t.services, { plan: 'pro', credits: 0 });
    const c = new OpenAI({ apiKey: poor.apiKey, baseURL, maxRetries: 0 });
    await assert.rejects(c.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 402);
      assert.equal((err.error as any).type, 'insufficient_quota');
      assert.equal((err.error as any).code, 'insufficient_credits');
      return true;
    });
  });

  test('rate limit: RateLimitError 429 with retry-after (the plan window, as on the native API)', async () => {
    const free = await createTestAccount(t.services, { plan: 'free', credits: 1000 });
    const c = new OpenAI({ apiKey: free.apiKey, baseURL, maxRetries: 0 });
    const perMinute = t.services.config.product.plans.free.requestsPerMinute;
    for (let i = 0; i < perMinute; i++) await c.models.list();
    await assert.rejects(c.models.list(), (err: unknown) => {
      assert.ok(err instanceof OpenAI.RateLimitError);
      assert.equal(err.status, 429);
      assert.ok(Number(err.headers?.get('retry-after')) > 0);
      assert.equal((err.error as any).type, 'rate_limit_error');
      return true;
    });
  });

  test('a disabled feature is PermissionDeniedError 403; an unknown /v1 path is NotFoundError', async () => {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 1000 });
    await t.services.store.setFeature(acct.accountId, 'tts', false);
    t.services.authenticator.invalidate();
    const c = new OpenAI({ apiKey: acct.apiKey, baseURL, maxRetries: 0 });
    await assert.rejects(c.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }), OpenAI.PermissionDeniedError);
    await t.services.store.setFeature(acct.accountId, 'stt', false);
    t.services.authenticator.invalidate();
    await assert.rejects(
      c.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1' }),
      (err: unknown) => err instanceof OpenAI.PermissionDeniedError && (err.error as any).code === 'feature_disabled',
    );
    const res = await fetch(`${baseURL}/nothing-here`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as any).error.type, 'not_found_error');
  });

  test('usage records and metrics count the dialect like the native API; x-request-id on success too', async () => {
    const acct = await createTestAccount(t.services, { plan: 'pro', credits: 100_000 });
    const c = new OpenAI({ apiKey: acct.apiKey, baseURL, maxRetries: 0 });
    const speech = await c.audio.speech.create({ model: 'tts-1', voice: 'echo', input: 'Counted once.', response_format: 'wav' });
    assert.match(String(speech.headers.get('x-request-id')), /^req_/);
    await c.audio.transcriptions.create({ file: createReadStream(fox), model: 'whisper-1' });
    const usage = (await t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': acct.apiKey } })).json();
    assert.equal(usage.usage.characters_used, [...'Counted once.'].length);
    assert.ok(usage.usage.requests_today >= 2, JSON.stringify(usage));
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer operator-token-openai' } }))
      .body;
    assert.match(metrics, /parla_http_requests_total\{method="POST",route="\/v1\/audio\/speech",status="200"\} [1-9]/);
    assert.match(metrics, /parla_http_requests_total\{method="POST",route="\/v1\/audio\/transcriptions",status="200"\} [1-9]/);
    assert.match(metrics, /parla_credits_debited_total\{model="cipher-max",mode="live"\} [1-9]/);
  });

  test('the routes are in /openapi.json under the tag openai', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, method] of [
      ['/v1/audio/speech', 'post'],
      ['/v1/audio/transcriptions', 'post'],
      ['/v1/audio/translations', 'post'],
      ['/v1/models', 'get'],
    ] as const) {
      // GET /v1/models is both dialects' (src/compat/models-routes.ts).
      assert.deepEqual(spec.paths[path][method].tags, path === '/v1/models' ? ['openai', 'deepgram'] : ['openai'], path);
    }
  });
});
