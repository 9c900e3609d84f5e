// How each cost grows with the work (issue 32, "How cost grows"), every line measured in one run:
//  tts   TTS time against text length (300, 3,000, 30,000 characters) per model: /tts/stream's whole
//        answer (generate takes at most 5,000 characters; beside it where it can), with the espeak-ng
//        and flite CLIs on the same texts for the engines' own growth
//  stt   /stt/transcribe time against audio length (10 s, 60 s, 600 s of the LibriVox reader) on
//        two servers alike but for the long-recording path: one pass (PARLA_STT_PARALLEL=off) and
//        in pieces (on, PARLA_STT_LONG_SECONDS=10 so that 60 s is cut too); runs alternate
//  live  simultaneous real-time streams against the server's CPU share (cores used) and the worst
//        end of speech -> final
//  jobs  transcription jobs finished per minute against PARLA_JOB_CONCURRENCY (1, 2, 4)
// Run: node --import tsx bench/cost-growth.ts   ONLY=tts,stt,live,jobs (default all), RUNS (default 3;
// the 30,000-character and 600 s lines run max(1, RUNS - 2) times), STT_MODEL (cipher-fast),
// AUDIO (seconds, default 10,60,600), STREAMS (1,2,4,8,12,16), JOBS (per concurrency, default 12).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { highLimitsConfig } from './api-load.js';
import { median, postFresh, startBenchServer, table, timeIt, type BenchServer } from './lib.js';
import { liveRecordings, realtimePort, simultaneous } from './measure/live.js';
import { cpuWithChildrenMs } from './measure/proc.js';
import { seconds, transcribe } from './measure/stt.js';
import { espeakCliMs, fliteCliMs, generateMs, prose, streamTimes } from './measure/tts.js';
import { multipart } from '../test/helpers/multipart.js';
import { librivox, soxConcat } from '../test/helpers/speech.js';

const RUNS = Number(process.env.RUNS ?? 3);
const ONLY = new Set((process.env.ONLY ?? 'tts,stt,live,jobs').split(','));
const STT_MODEL = process.env.STT_MODEL ?? 'cipher-fast';
const loads: number[] = [];
const sampler = setInterval(() => loads.push(loadavg()[0]!), 2000);
const loadRange = (from: number) => {
  const xs = loads.slice(from);
  if (xs.length === 0) xs.push(loadavg()[0]!);
  return `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en');

async function ttsGrowth(): Promise<void> {
  const server = await startBenchServer({ PARLA_WORKERS: '2' });
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-growth-'));
  try {
    for (const m of ['aura-lite', 'aura-prime']) await generateMs(server, prose(300), m); // warm
    const rows: Array<Record<string, string | number>> = [];
    for (const chars of [300, 3000, 30000]) {
      const mark = loads.length;
      const text = prose(chars);
      const runs = chars >= 30000 ? Math.max(1, RUNS - 2) : RUNS;
      // /tts/generate takes at most 5,000 characters; /tts/stream 50,000: the line is the stream's
      // whole answer, with generate beside it where it can be asked.
      const t: Record<string, number[]> = { liteGen: [], lite: [], primeGen: [], prime: [], primeFirst: [], espeak: [], flite: [] };
      for (let i = 0; i < runs; i++) {
        if (chars <= 5000) t.liteGen!.push(await generateMs(server, text, 'aura-lite'));
        t.lite!.push((await streamTimes(server, text, 'aura-lite')).totalMs);
        t.espeak!.push(espeakCliMs(text, dir));
        if (chars <= 5000) t.primeGen!.push(await generateMs(server, text, 'aura-prime'));
        const s = await streamTimes(server, text, 'aura-prime');
        t.prime!.push(s.totalMs);
        t.primeFirst!.push(s.firstByteMs);
        t.flite!.push(fliteCliMs(text, dir));
      }
      const per = (xs: number[]) => (xs.length ? `${fmt(median(xs))} (${((1000 * median(xs)) / chars).toFixed(0)}/1k)` : '- (over 5,000)');
      rows.push({
        characters: chars.toLocaleString('en'),
        'aura-lite generate ms (per 1k chars)': per(t.liteGen!),
        'aura-lite stream, whole': per(t.lite!),
        'espeak-ng CLI': per(t.espeak!),
        'aura-prime generate': per(t.primeGen!),
        'aura-prime stream, whole': per(t.prime!),
        'aura-prime stream first byte ms': fmt(median(t.primeFirst!)),
        'flite CLI': per(t.flite!),
        runs,
        load: loadRange(mark),
      });
    }
    console.log(
      '\nTTS time against text length (voice Aria; CLIs with the same engine voices), medians; ms, and ms per 1,000 characters\n',
    );
    console.log(table(rows));
  } finally {
    await server.stop();
  }
}

async function sttGrowth(): Promise<void> {
  const files = librivox().map((f) => f.file);
  const cut = (secs: number) => {
    const list: string[] = [];
    for (let total = 0; total < secs; total += seconds(files[list.length % files.length]!) + 0.3)
      list.push(files[list.length % files.length]!);
    const out = path.join(tmpdir(), `parla-growth-${secs}s-${process.pid}.wav`);
    execFileSync('sox', [soxConcat(list, 0.3), out, 'trim', '0', String(secs)]);
    return out;
  };
  const common = { PARLA_STT_DECODERS: '2', PARLA_STT_PRELOAD: 'true' };
  const one = await startBenchServer({ ...common, PARLA_STT_PARALLEL: 'off' });
  const par = await startBenchServer({ ...common, PARLA_STT_PARALLEL: 'on', PARLA_STT_LONG_SECONDS: '10' });
  try {
    await transcribe(one, files[0]!, STT_MODEL);
    await transcribe(par, files[0]!, STT_MODEL);
    const rows: Array<Record<string, string | number>> = [];
    for (const secs of (process.env.AUDIO ?? '10,60,600').split(',').map(Number)) {
      const file = cut(secs);
      const mark = loads.length;
      const runs = secs >= 600 ? Math.max(1, RUNS - 2) : RUNS;
      const t = { one: [] as number[], par: [] as number[] };
      for (let i = 0; i < runs; i++) {
        t.one.push((await timeIt(() => transcribe(one, file, STT_MODEL))).ms);
        t.par.push((await timeIt(() => transcribe(par, file, STT_MODEL))).ms);
      }
      rows.push({
        audio: `${secs} s`,
        'one pass ms': fmt(median(t.one)),
        'one pass RTF': (median(t.one) / 1000 / secs).toFixed(3),
        'in pieces ms': fmt(median(t.par)),
        'in pieces RTF': (median(t.par) / 1000 / secs).toFixed(3),
        'pieces / one pass': (median(t.par) / median(t.one)).toFixed(2),
        runs,
        load: loadRange(mark),
      });
      console.error(`stt ${secs} s: one ${t.one.map(fmt).join(', ')}; pieces ${t.par.map(fmt).join(', ')}`);
    }
    console.log(
      `\nRecognition time against audio length (/stt/transcribe, ${STT_MODEL}, PARLA_STT_DECODERS=2; pieces: PARLA_STT_LONG_SECONDS=10, 30 s pieces), medians\n`,
    );
    console.log(table(rows));
  } finally {
    await one.stop();
    await par.stop();
  }
}

async function liveGrowth(): Promise<void> {
  const steps = (process.env.STREAMS ?? '1,2,4,8,12,16').split(',').map(Number);
  const recs = liveRecordings();
  const server = await startBenchServer({ PARLA_STT_DECODERS: String(Math.max(...steps)) });
  try {
    const port = await realtimePort(server);
    await simultaneous(server, port, recs, 1, '200');
    const rows: Array<Record<string, string | number>> = [];
    for (const n of steps) {
      const mark = loads.length;
      const cpu0 = cpuWithChildrenMs(server.proc.pid!);
      const { ms, value } = await timeIt(() => simultaneous(server, port, recs, n, '200'));
      const cores = (cpuWithChildrenMs(server.proc.pid!) - cpu0) / ms;
      const ends = value.map((r) => r.endToFinal);
      rows.push({
        streams: n,
        'server cores used': cores.toFixed(2),
        'cores per stream': (cores / n).toFixed(3),
        'end -> final median ms': fmt(median(ends)),
        'worst ms': fmt(Math.max(...ends)),
        'all within 1 s': Math.max(...ends) < 1000 ? 'yes' : 'no',
        load: loadRange(mark),
      });
    }
    console.log(
      '\nLive streams against CPU share (cipher-fast, endpointing 200 ms, the five LibriVox recordings, all starting together)\n',
    );
    console.log(table(rows));
  } finally {
    await server.stop();
  }
}

async function submitJob(server: BenchServer, upload: { body: Uint8Array; contentType: string }): Promise<string> {
  const res = await postFresh(
    `${server.url}/api/v1/stt/jobs`,
    { 'x-api-key': server.apiKey, 'content-type': upload.contentType },
    upload.body,
  );
  if (res.status !== 202) throw new Error(`POST /stt/jobs: ${res.status} ${res.body.slice(0, 300)}`);
  return (JSON.parse(res.body) as { job: { id: string } }).job.id;
}

async function jobsGrowth(): Promise<void> {
  const JOBS = Number(process.env.JOBS ?? 12);
  const files = librivox().map((f) => f.file);
  // A 30 s recording per job (below the 60 s long-recording threshold: one decoder per job).
  const file = path.join(tmpdir(), `parla-growth-job-${process.pid}.wav`);
  execFileSync('sox', [soxConcat([...files, ...files], 0.3), file, 'trim', '0', '30']);
  const upload = await multipart(readFileSync(file), { model: STT_MODEL, smart_format: 'false', punctuate: 'false' });
  const rows: Array<Record<string, string | number>> = [];
  for (const concurrency of [1, 2, 4]) {
    const server = await startBenchServer({
      PARLA_CONFIG: highLimitsConfig(),
      PARLA_JOB_CONCURRENCY: String(concurrency),
      PARLA_JOB_ACCOUNT_CONCURRENCY: String(concurrency),
      PARLA_STT_DECODERS: String(Math.max(2, concurrency)),
      PARLA_STT_PRELOAD: 'true',
    });
    try {
      await transcribe(server, files[0]!, STT_MODEL);
      const mark = loads.length;
      const t0 = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < JOBS; i++) ids.push(await submitJob(server, upload));
      const pending = new Set(ids);
      while (pending.size > 0) {
        await new Promise((r) => setTimeout(r, 250));
        for (const id of [...pending]) {
          const r = await fetch(`${server.url}/api/v1/stt/jobs/${id}`, { headers: { 'x-api-key': server.apiKey } });
          const { job } = (await r.json()) as { job: { status: string; error?: unknown } };
          if (job.status === 'failed' || job.status === 'canceled')
            throw new Error(`job ${id} ${job.status}: ${JSON.stringify(job.error)}`);
          if (job.status === 'completed') pending.delete(id);
        }
      }
      const minutes = (performance.now() - t0) / 60000;
      rows.push({
        PARLA_JOB_CONCURRENCY: concurrency,
        jobs: JOBS,
        'wall s': (minutes * 60).toFixed(1),
        'jobs per minute': (JOBS / minutes).toFixed(1),
        load: loadRange(mark),
      });
    } finally {
      await server.stop();
    }
  }
  console.log(
    `\nJobs finished per minute against PARLA_JOB_CONCURRENCY (${JOBS} jobs of a 30 s recording each, ${STT_MODEL}, one account, SQLite queue)\n`,
  );
  console.log(table(rows));
}

try {
  console.log(
    `How cost grows, ${new Date().toISOString()}, ${cpus().length} cores, load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  if (ONLY.has('tts')) await ttsGrowth();
  if (ONLY.has('stt')) await sttGrowth();
  if (ONLY.has('live')) await liveGrowth();
  if (ONLY.has('jobs')) await jobsGrowth();
} finally {
  clearInterval(sampler);
}
