// Issue 30's decoding defects on every batch STT edge: a 20 KB M4A that ended the process with
// "JavaScript heap out of memory", mutated files of every container (each answers 200 or 4xx,
// never 500, never a crash), and audio decoded before it was paid for: a 0-credit key, a header
// declaring hours of audio, and the absolute cap (PARLA_STT_MAX_AUDIO_SECONDS).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startHostileService, type HostileService } from './harness.js';
import { createTestAccount } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { buildCorpus, declaredLongFiles, HEAP_CRASH_M4A } from './decode-corpus.js';

let svc: HostileService;
let base: string;
let poor: string;

before(async () => {
  // The absolute cap is lowered so that a cheap file can pass it.
  svc = await startHostileService({ PARLA_STT_MAX_AUDIO_SECONDS: '3600', PARLA_DECODE_TIMEOUT_SECONDS: '60' });
  base = `http://127.0.0.1:${svc.port}`;
  // 20 credits: 10 s of a Cipher model.
  poor = (await createTestAccount(svc.t.services, { plan: 'enterprise', credits: 20, testCredits: 0 })).apiKey;
});

after(async () => {
  await svc?.close();
});

type Edge = 'native' | 'openai' | 'deepgram';
const EDGES: Edge[] = ['native', 'openai', 'deepgram'];

async function send(edge: Edge, bytes: Buffer, key: string, filename = 'audio.bin'): Promise<{ status: number; body: any; ms: number }> {
  const t = performance.now();
  let res: Response;
  if (edge === 'deepgram') {
    res = await fetch(`${base}/v1/listen?model=nova-3`, {
      method: 'POST',
      headers: { authorization: `Token ${key}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
  } else {
    const mp = await multipart(bytes, edge === 'openai' ? { model: 'whisper-1' } : { model: 'cipher-fast' }, filename);
    res = await fetch(`${base}${edge === 'openai' ? '/v1/audio/transcriptions' : '/api/v1/stt/transcribe'}`, {
      method: 'POST',
      headers: { 'content-type': mp.contentType, ...(edge === 'openai' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }) },
      body: mp.body,
    });
  }
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text answers (a Deepgram or OpenAI text format) stay text
  }
  return { status: res.status, body, ms: performance.now() - t };
}

/** The error code in any dialect's body. */
function code(body: any): string | undefined {
  return body?.error?.code ?? body?.parla_code ?? body?.err_code ?? body?.error?.type;
}

async function healthy(): Promise<void> {
  const res = await fetch(`${base}/health`);
  assert.equal(res.status, 200, 'the service stopped answering /health');
}

describe('the M4A that exhausted the heap', () => {
  for (const edge of EDGES) {
    test(`${edge}: 422 (or the dialect's equivalent) and the service keeps serving`, async () => {
      const bytes = readFileSync(HEAP_CRASH_M4A);
      const r = await send(edge, bytes, svc.creds.rich, 'crash.m4a');
      assert.equal(r.status, 422, JSON.stringify(r.body));
      await healthy();
    });
  }
  test('with a 0-credit key: 402 before the file is decoded', async () => {
    const r = await send('native', readFileSync(HEAP_CRASH_M4A), svc.creds.broke, 'crash.m4a');
    assert.equal(r.status, 402);
    assert.equal(code(r.body), 'INSUFFICIENT_CREDITS');
    await healthy();
  });
});

describe('mutated files of every container', () => {
  const corpus = buildCorpus(Number(process.env.HOSTILE_DECODE_COPIES ?? 4));
  test(`${corpus.length} files across the three edges: 200 or 4xx, never 500, the service stays up`, async () => {
    const byStatus = new Map<number, number>();
    const bad: string[] = [];
    let i = 0;
    for (const f of corpus) {
      const edge = EDGES[i++ % EDGES.length]!;
      const r = await send(edge, f.bytes, svc.creds.rich, `audio.${f.container}`);
      byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      if (!(r.status === 200 || (r.status >= 400 && r.status < 500)))
        bad.push(`${f.name} on ${edge}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      if (f.name.endsWith('clean') && r.status !== 200) bad.push(`${f.name} on ${edge}: a clean file answered ${r.status}`);
    }
    console.log(`decode corpus: ${corpus.length} files, answers ${JSON.stringify(Object.fromEntries(byStatus))}`);
    assert.deepEqual(bad, []);
    await healthy();
  });
});

describe('paying before decoding', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-declared-'));
  const { longWav, hourFlac } = declaredLongFiles(dir);
  // 20 minutes of MP3 silence (its length is ffprobe's reading of the frames).
  const longMp3 = path.join(dir, 'long.mp3');
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=16000:cl=mono',
    '-t',
    '1200',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '8k',
    longMp3,
  ]);

  for (const edge of EDGES) {
    test(`${edge}: a 0-credit key is 402 at once, whatever the file`, async () => {
      const r = await send(edge, readFileSync(longWav), svc.creds.broke, 'long.wav');
      assert.equal(r.status, 402, JSON.stringify(r.body));
      assert.ok(r.ms < 5000, `answered after ${Math.round(r.ms)} ms`);
    });
  }

  test('declared lengths the balance cannot pay are 402 before decoding (WAV, FLAC, MP3)', async () => {
    for (const [file, name] of [
      [hourFlac, 'hour.flac'],
      [longMp3, 'long.mp3'],
    ] as const) {
      const r = await send('native', readFileSync(file), poor, name);
      assert.equal(r.status, 402, `${name}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, /at least \d+ s/);
    }
  });

  test('over the absolute cap: 400 AUDIO_TOO_LONG from the header, on every edge', async () => {
    for (const edge of EDGES) {
      const r = await send(edge, readFileSync(longWav), svc.creds.rich, 'long.wav');
      assert.equal(r.status, 400, `${edge}: ${JSON.stringify(r.body)}`);
      assert.match(String(code(r.body)), /^audio_too_long$/i, JSON.stringify(r.body));
      assert.ok(r.ms < 10_000, `${edge}: answered after ${Math.round(r.ms)} ms`);
    }
    await healthy();
  });
});
