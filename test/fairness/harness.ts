// Issue 30, "Fairness as a tested property": one attacking account runs the worst inputs of the
// issue at once while a second account's ordinary requests are timed against the same requests on
// the idle node. Shared by test/fairness/fairness.test.ts (asserts the bounds) and
// bench/fairness.ts (prints the figures). Everything runs against real `parla serve` processes
// (test/helpers/node-process.ts): real engines, real store, real sockets.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { multipart } from '../helpers/multipart.js';
import { flite } from '../helpers/speech.js';
import type { NodeProcess } from '../helpers/node-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A victim request not done by then is starved: it counts as failed (and the round goes on). */
export const VICTIM_TIMEOUT_MS = 60_000;

export const REPRO_M4A = ['test/fixtures/hostile/m4a-heap-crash.m4a'].find((p) => existsSync(p));

export interface Keys {
  /** The victim: an ordinary account with credits. */
  b: string;
  /** The attacker's account with 2,000 credits (10 were refused at the live upgrade with 402, so its sockets never ran). */
  a: string;
  /** The attacker's 0-credit account (maximal uploads). */
  a0: string;
}

export type Kind = 'tts' | 'stt' | 'live' | 'job';
export const KINDS: Kind[] = ['tts', 'stt', 'live', 'job'];
/**
 * How many of each kind one round times, one after another: a short TTS takes 20-50 ms, where one
 * scheduling hiccup of the shared machine doubles a single sample, so a median of three rounds of
 * one sample each swung from 0.5x to 2.7x between runs of the same code (docs/benchmarks.md
 * "Fairness"). Several samples a round make the median the node's behaviour, not one hiccup's.
 */
export const REPEATS: Record<Kind, number> = { tts: 5, stt: 3, live: 1, job: 2 };

export interface Round {
  /** The median of the kind's samples in this round. */
  ms: Record<Kind, number>;
  /** Every timed request of the round, per kind (REPEATS of each; a failed one is Infinity). */
  samples: Record<Kind, number[]>;
  credits: Record<Kind, number>;
  ok: boolean;
  errors: string[];
}

/** Local servers the attack and the victim's job need: a drip source, a slow and a quick webhook receiver. */
export interface Locals {
  dripUrl: string;
  slowHookUrl: string;
  hookUrl: string;
  /** Resolves with the job object of the first webhook carrying this job id. */
  webhookFor(jobId: string): Promise<any>;
  slowHits: number;
  close(): Promise<void>;
}

export async function startLocals(): Promise<Locals> {
  const waiters = new Map<string, (job: any) => void>();
  const seen = new Map<string, any>();
  const sockets = new Set<import('node:net').Socket>();
  let slowHits = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/drip')) {
      // One byte every 2 s, forever: never idle long enough for the idle timeout.
      res.writeHead(200, { 'content-type': 'audio/wav' });
      const timer = setInterval(() => res.write(Buffer.from([0x52])), 2000);
      res.write(Buffer.from([0x52]));
      res.on('close', () => clearInterval(timer));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url?.startsWith('/slow-hook')) {
        slowHits++;
        setTimeout(() => res.writeHead(200).end('ok'), 15_000).unref();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        const id = body?.job?.id as string;
        if (id && !seen.has(id)) {
          seen.set(id, body.job);
          waiters.get(id)?.(body.job);
        }
      } catch {
        // not ours
      }
      res.writeHead(200).end('ok');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    dripUrl: `${base}/drip.wav`,
    slowHookUrl: `${base}/slow-hook`,
    hookUrl: `${base}/hook`,
    get slowHits() {
      return slowHits;
    },
    webhookFor: (id) => (seen.has(id) ? Promise.resolve(seen.get(id)) : new Promise((r) => waiters.set(id, r))),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The attack's inputs, made once: the maximal uploads. */
export interface Inputs {
  speechWav: Buffer;
  speechPcm: Buffer;
  /** 24 MB WAV at 1 kHz 8-bit: 6.7 hours declared and present (issue item 3). */
  bigWav: Buffer;
  /** An hour of FLAC silence in a few KB (issue item 3). */
  hourFlac: Buffer;
  /** The 20 KB M4A that exhausted the heap (issue item 2), when the repro is on disk. */
  m4a: Buffer | null;
}

export function makeInputs(): Inputs {
  const speechFile = flite('The weather is fine today.');
  const speechWav = readFileSync(speechFile);
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-fair-'));
  const flac = path.join(dir, 'hour.flac');
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', flac, 'trim', '0', '3600']);
  const dataBytes = 24 * 1024 * 1024;
  const bigWav = Buffer.alloc(44 + dataBytes);
  bigWav.write('RIFF', 0);
  bigWav.writeUInt32LE(36 + dataBytes, 4);
  bigWav.write('WAVEfmt ', 8);
  bigWav.writeUInt32LE(16, 16);
  bigWav.writeUInt16LE(1, 20);
  bigWav.writeUInt16LE(1, 22);
  bigWav.writeUInt32LE(1000, 24);
  bigWav.writeUInt32LE(1000, 28);
  bigWav.writeUInt16LE(1, 32);
  bigWav.writeUInt16LE(8, 34);
  bigWav.write('data', 36);
  bigWav.writeUInt32LE(dataBytes, 40);
  // Low noise around the 8-bit midpoint: real samples, nothing a shortcut could skip as silence.
  for (let i = 44; i < bigWav.length; i++) bigWav[i] = 126 + ((i * 2654435761) >>> 29);
  return {
    speechWav,
    speechPcm: speechWav.subarray(44),
    bigWav,
    hourFlac: readFileSync(flac),
    m4a: REPRO_M4A ? readFileSync(REPRO_M4A) : null,
  };
}

// ---- the victim's ordinary requests ----------------------------------------------------------

async function tts(node: NodeProcess, key: string): Promise<{ ms: number; credits: number }> {
  const t0 = performance.now();
  const res = await fetch(`${node.url}/api/v1/tts/generate`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Your order has shipped.', voice: 'Aria', model: 'aura-lite' }),
    signal: AbortSignal.timeout(VICTIM_TIMEOUT_MS),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`tts ${res.status}`);
  return { ms: performance.now() - t0, credits: Number(res.headers.get('x-credits-used')) };
}

async function stt(node: NodeProcess, key: string, wav: Buffer): Promise<{ ms: number; credits: number }> {
  const { body, contentType } = await multipart(wav, { model: 'cipher-fast' });
  const t0 = performance.now();
  const res = await fetch(`${node.url}/api/v1/stt/transcribe`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(VICTIM_TIMEOUT_MS),
  });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`stt ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
  if (!/weather/i.test(json.text)) throw new Error(`stt text ${json.text}`);
  return { ms: performance.now() - t0, credits: json.credits_used };
}

/** A native live stream: the recording at twice real time, then CloseStream; timed to the Summary. */
async function live(node: NodeProcess, key: string, pcm: Buffer): Promise<{ ms: number; credits: number }> {
  const ws = new WebSocket(
    `wss://127.0.0.1:${node.realtimePort}/api/v1/stt/realtime/stream?${new URLSearchParams({ api_key: key, interim_results: 'false' })}`,
    { rejectUnauthorized: false },
  );
  const messages: any[] = [];
  ws.on('message', (d, bin) => {
    if (!bin) messages.push(JSON.parse(d.toString()));
  });
  ws.on('error', () => undefined);
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_q, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(new Error(`live upgrade ${res.statusCode} ${body.slice(0, 160)}`)));
      res.on('error', () => reject(new Error(`live upgrade ${res.statusCode}`)));
    });
    ws.once('error', reject);
  });
  for (let i = 0; i < pcm.length; i += 3200) {
    ws.send(pcm.subarray(i, i + 3200));
    await sleep(50);
  }
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  const timeout = setTimeout(() => ws.terminate(), VICTIM_TIMEOUT_MS);
  const code = await closed;
  clearTimeout(timeout);
  const summary = messages.find((m) => m.type === 'Summary');
  const text = messages
    .filter((m) => m.type === 'Results')
    .map((m) => m.channel?.alternatives?.[0]?.transcript ?? '')
    .join(' ');
  if (!summary || !/weather|fine|today/i.test(text))
    throw new Error(`live close ${code}, text "${text}", ${JSON.stringify(messages.at(-1)).slice(0, 200)}`);
  return { ms: performance.now() - t0, credits: summary.credits_used };
}

/** A job with a webhook: timed from the upload to the webhook's arrival. */
async function job(node: NodeProcess, key: string, wav: Buffer, locals: Locals): Promise<{ ms: number; credits: number }> {
  const { body, contentType } = await multipart(wav, { model: 'cipher-fast', callback_url: locals.hookUrl });
  const t0 = performance.now();
  const res = await fetch(`${node.url}/api/v1/stt/jobs`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  const json = (await res.json()) as any;
  if (res.status !== 202) throw new Error(`job ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
  const done = await Promise.race([locals.webhookFor(json.job.id), sleep(VICTIM_TIMEOUT_MS).then(() => null)]);
  if (!done) throw new Error(`no webhook within ${VICTIM_TIMEOUT_MS} ms`);
  if (done.status !== 'completed') throw new Error(`job ${done.status} ${JSON.stringify(done.error)}`);
  return { ms: performance.now() - t0, credits: done.credits_used };
}

/** One round of the victim's four requests, run side by side (as an ordinary client would). */
export async function victimRound(nodes: NodeProcess[], key: string, inputs: Inputs, locals: Locals, i = 0): Promise<Round> {
  const pick = (k: number) => nodes[(i + k) % nodes.length]!;
  const ms = {} as Record<Kind, number>;
  const samples = {} as Record<Kind, number[]>;
  const credits = {} as Record<Kind, number>;
  const errors: string[] = [];
  // The kinds run side by side, as one client's mixed traffic would; each kind's requests one after another.
  const run = async (kind: Kind, f: () => Promise<{ ms: number; credits: number }>) => {
    samples[kind] = [];
    credits[kind] = 0;
    for (let r = 0; r < REPEATS[kind]; r++) {
      try {
        const x = await f();
        samples[kind].push(x.ms);
        credits[kind] += x.credits;
      } catch (err) {
        samples[kind].push(Number.POSITIVE_INFINITY);
        errors.push(`${kind}: ${(err as Error).message}`);
      }
    }
    ms[kind] = median(samples[kind]);
  };
  await Promise.all([
    run('tts', () => tts(pick(0), key)),
    run('stt', () => stt(pick(1), key, inputs.speechWav)),
    run('live', () => live(pick(0), key, inputs.speechPcm)),
    run('job', () => job(pick(1), key, inputs.speechWav, locals)),
  ]);
  return { ms, samples, credits, ok: errors.length === 0, errors };
}

// ---- the attack ------------------------------------------------------------------------------

export interface AttackStats {
  statuses: Record<string, number>;
  /** Credits the attacker's answers reported (live Summaries; its jobs are read back afterwards). */
  reportedCredits: number;
  jobIds: string[];
  requests: number;
  sockets: number;
}

/**
 * Runs until `stop` resolves: silent live sockets (Deepgram KeepAlive-only and native), garbage on
 * every socket type (random Opus, audio after CloseStream, random text), drip URL jobs, jobs whose
 * webhook receiver answers after 15 s, and maximal uploads on the 0-credit key on every batch edge.
 */
export type AttackPart = 'silent' | 'garbage' | 'uploads' | 'jobs';
export const ATTACK_PARTS: AttackPart[] = ['silent', 'garbage', 'uploads', 'jobs'];

export async function attack(
  nodes: NodeProcess[],
  keys: Keys,
  inputs: Inputs,
  locals: Locals,
  stop: Promise<void>,
  parts: AttackPart[] = ATTACK_PARTS,
  /** Jobs the attacker submits in one phase (a third each drip, slow webhook, 0-credit upload). */
  maxJobs = 40,
): Promise<AttackStats> {
  const stats: AttackStats = { statuses: {}, reportedCredits: 0, jobIds: [], requests: 0, sockets: 0 };
  let stopped = false;
  void stop.then(() => (stopped = true));
  const count = (label: string) => {
    stats.statuses[label] = (stats.statuses[label] ?? 0) + 1;
  };
  const node = (i: number) => nodes[i % nodes.length]!;
  const open: WebSocket[] = [];

  const dgSocket = (i: number, key: string, q = 'encoding=linear16&sample_rate=16000') => {
    const u = new URL(node(i).url);
    const ws = new WebSocket(`ws://${u.host}/v1/listen?model=base&${q}`, { headers: { Authorization: `Token ${key}` } });
    ws.on('error', () => undefined);
    // Deepgram's closing Metadata says the seconds received, not credits: priced as the node bills a
    // stream (per started second) at base's model, cipher-fast, 2 credits a second (config/parla.json).
    ws.on('message', (d, bin) => {
      if (bin) return;
      try {
        const m = JSON.parse(d.toString());
        if (m.type === 'Metadata' && m.duration > 0) stats.reportedCredits += Math.max(1, Math.ceil(m.duration - 1e-9)) * 2;
      } catch {
        // not JSON
      }
    });
    ws.on('unexpected-response', (_q, res) => {
      count(`ws-upgrade ${res.statusCode}`);
      res.resume();
    });
    stats.sockets++;
    open.push(ws);
    return ws;
  };
  const nativeSocket = (i: number, key: string, q: Record<string, string> = {}) => {
    const ws = new WebSocket(
      `wss://127.0.0.1:${node(i).realtimePort}/api/v1/stt/realtime/stream?${new URLSearchParams({ api_key: key, ...q })}`,
      { rejectUnauthorized: false },
    );
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_q, res) => {
      count(`ws-upgrade ${res.statusCode}`);
      res.resume();
    });
    ws.on('message', (d, bin) => {
      if (bin) return;
      try {
        const m = JSON.parse(d.toString());
        if (m.type === 'Summary') stats.reportedCredits += m.credits_used ?? 0;
      } catch {
        // garbage from us, not from the server
      }
    });
    stats.sockets++;
    open.push(ws);
    return ws;
  };
  const closedCode = (ws: WebSocket) => new Promise<void>((r) => ws.once('close', (code) => (count(`ws-close ${code}`), r())));
  // A refused upgrade handled by 'unexpected-response' emits no 'close': it and a hung handshake end
  // the wait too, or a refused socket would hold its loop past the attack's end.
  const opened = (ws: WebSocket) =>
    Promise.race([
      new Promise<boolean>((r) => {
        ws.once('open', () => r(true));
        ws.once('close', () => r(false));
        ws.once('unexpected-response', () => r(false));
      }),
      sleep(10_000).then(() => false),
    ]);

  // Silent sockets: four Deepgram KeepAlive-only per node, two native ones that send nothing at all
  // (closed by the idle bound and opened again, as a persistent attacker would).
  const silent = async () => {
    const socks = nodes.flatMap((_, n) => Array.from({ length: 4 }, () => dgSocket(n, keys.a)));
    const timer = setInterval(() => socks.forEach((s) => s.readyState === s.OPEN && s.send(JSON.stringify({ type: 'KeepAlive' }))), 1000);
    const natives = async (n: number) => {
      while (!stopped) {
        const ws = nativeSocket(n, keys.a);
        await Promise.race([closedCode(ws), stop, new Promise((r) => ws.once('unexpected-response', r)).then(() => sleep(1000))]);
        ws.terminate();
      }
    };
    await Promise.all([stop, ...nodes.flatMap((_, n) => [natives(n), natives(n)])]);
    clearInterval(timer);
    for (const s of socks) s.terminate();
  };

  // Garbage on every socket: random Opus until the stream ends, then more; CloseStream then audio
  // and an empty frame; random text and binary on the native socket.
  const garbage = async (n: number) => {
    let i = 0;
    while (!stopped) {
      const which = i++ % 3;
      const ws =
        which === 0
          ? dgSocket(n, keys.a, 'encoding=opus&sample_rate=48000')
          : which === 1
            ? dgSocket(n, keys.a)
            : nativeSocket(n, keys.a, { encoding: 'opus', sample_rate: '48000' });
      const closed = closedCode(ws);
      if (await opened(ws)) {
        for (let f = 0; f < 40 && ws.readyState === ws.OPEN; f++) {
          if (which === 1 && f === 5) ws.send(JSON.stringify({ type: 'CloseStream' }));
          else if (which === 1 && f === 6) ws.send(Buffer.alloc(0));
          else if (which === 2 && f % 4 === 0) ws.send('{"type":"' + 'x'.repeat(f * 10));
          else ws.send(which === 1 && f < 5 ? Buffer.alloc(3200) : randomBytes(200 + ((f * 97) % 800)));
          await sleep(20);
        }
        // Whatever the server did, send more after it ended (the crash of issue item 1).
        await sleep(200);
        for (let f = 0; f < 5 && ws.readyState === ws.OPEN; f++) ws.send(randomBytes(500));
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'CloseStream' }));
      }
      await Promise.race([closed, sleep(15_000)]);
      ws.terminate();
    }
  };

  const request = async (label: string, f: () => Promise<Response>) => {
    stats.requests++;
    try {
      const res = await f();
      const text = await res.text();
      count(`${label} ${res.status}`);
      if (label.startsWith('job') && res.status === 202) stats.jobIds.push(JSON.parse(text).job.id);
      const credits = Number(res.headers.get('x-credits-used'));
      if (res.status === 200 && credits > 0) stats.reportedCredits += credits;
    } catch (err) {
      count(`${label} ${(err as Error).name}`);
    }
  };
  const post = (i: number, p: string, key: string, body: Buffer | string, type: string, auth: 'x-api-key' | 'token' = 'x-api-key') =>
    fetch(`${node(i).url}${p}`, {
      method: 'POST',
      headers: { ...(auth === 'token' ? { authorization: `Token ${key}` } : { 'x-api-key': key }), 'content-type': type },
      body,
      signal: AbortSignal.timeout(60_000),
    });

  // Maximal uploads on the 0-credit key, on every batch edge, one after another per lane.
  const uploads = async (lane: number) => {
    const files: Array<[string, Buffer, string]> = [
      ['wav24mb', inputs.bigWav, 'audio/wav'],
      ['flac1h', inputs.hourFlac, 'audio/flac'],
    ];
    if (inputs.m4a) files.push(['m4a', inputs.m4a, 'audio/mp4']);
    let i = lane;
    while (!stopped) {
      const [name, bytes, type] = files[i % files.length]!;
      const edge = Math.floor(i / files.length) % 3;
      i++;
      if (edge === 0) await request(`listen ${name}`, () => post(i, '/v1/listen?model=base', keys.a0, bytes, type, 'token'));
      else {
        const { body, contentType } = await multipart(
          bytes,
          { model: edge === 1 ? 'cipher-fast' : 'whisper-1' },
          `x.${name.replace(/\d.*/, '') || 'bin'}`,
        );
        await request(`${edge === 1 ? 'transcribe' : 'openai'} ${name}`, () =>
          post(
            i,
            edge === 1 ? '/api/v1/stt/transcribe' : '/v1/audio/transcriptions',
            keys.a0,
            body,
            contentType,
            edge === 1 ? 'x-api-key' : 'token',
          ),
        );
      }
    }
  };

  // Jobs: drip sources, and short uploads whose webhook receiver stalls 15 s; the 0-credit key's
  // maximal job uploads too.
  const jobs = async () => {
    let i = 0;
    while (!stopped && i < maxJobs) {
      const k = i++;
      if (k % 3 === 0)
        await request('job drip', () =>
          post(
            k,
            '/api/v1/stt/jobs',
            keys.a,
            JSON.stringify({ url: `${locals.dripUrl}?${k}`, callback_url: locals.slowHookUrl }),
            'application/json',
          ),
        );
      else if (k % 3 === 1) {
        const { body, contentType } = await multipart(inputs.speechWav, { callback_url: locals.slowHookUrl });
        await request('job slowhook', () => post(k, '/api/v1/stt/jobs', keys.a, body, contentType));
      } else {
        const { body, contentType } = await multipart(inputs.bigWav, {});
        await request('job wav24mb 0-credit', () => post(k, '/api/v1/stt/jobs', keys.a0, body, contentType));
      }
      await sleep(300);
    }
    await stop;
  };

  const on = (p: AttackPart) => parts.includes(p);
  await Promise.all([
    stop,
    ...(on('silent') ? [silent()] : []),
    ...(on('garbage') ? nodes.map((_, n) => garbage(n)) : []),
    ...(on('uploads') ? [uploads(0), uploads(1)] : []),
    ...(on('jobs') ? [jobs()] : []),
  ]);
  for (const ws of open) ws.terminate();
  return stats;
}

function randomBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  let x = (n * 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

// ---- the node's health ---------------------------------------------------------------------------

/** Polls /health every 100 ms until stopped; returns every latency (Infinity for a failure). */
export async function probeHealth(nodes: NodeProcess[], stop: Promise<void>): Promise<number[]> {
  const out: number[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  while (!stopped) {
    await Promise.all(
      nodes.map(async (n) => {
        const t0 = performance.now();
        try {
          const res = await fetch(`${n.url}/health`, { signal: AbortSignal.timeout(10_000) });
          await res.arrayBuffer();
          out.push(res.ok ? performance.now() - t0 : Number.POSITIVE_INFINITY);
        } catch {
          out.push(Number.POSITIVE_INFINITY);
        }
      }),
    );
    await sleep(100);
  }
  return out;
}

/** Resident memory of a process in MB (/proc/PID/status VmRSS). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Resident memory of a process and its descendants (decoder processes included), in MB. */
export function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  }
  let total = 0;
  const walk = (p: number) => {
    try {
      total += rssMb(p);
    } catch {
      return;
    }
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return total;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : Number.NaN;
};
export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : Number.NaN;
};
