// The premium tier is never worse (issue 29 item 5): every English Aura voice on aura-max beside
// the same voice on aura-prime, the same sentences, each rendering sent through the service's own
// recognizer (POST /tts/generate as WAV, then POST /stt/transcribe, cipher-fast, formatting off),
// word error rate per voice and the difference in points (goal: aura-max at most 1 point worse).
// Then a few voices at request pitches (the Aria at +2 and +4 semitones), both models.
// The sentences are bench/sentences.ts's three sets of twenty (560 words): a woman's difference
// between the two models moved by up to 22 points from one set of ~190 words to another (decision
// #107), so the goal is judged on all of them and each set's difference is shown beside it. A
// rendering identical to one already transcribed is not sent again (the recognizer is
// deterministic). Word error rates do not depend on the machine's load; the time does.
// Run: node --import tsx bench/premium-tier.ts
//   SENTENCE_SET (comma list of first, held-out, third; default all three), SENTENCES (the first n
//   of each set), VOICES (comma list of names), PITCH_VOICES (default Aria), PITCHES (request
//   semitones, default -4,-2,2,4; empty: none), CONCURRENCY (renderings in flight, default 2)
import { cpus, loadavg } from 'node:os';
import { postFreshBytes, startBenchServer, table } from './lib.js';
import { cachedTranscriber } from './transcriber.js';
import { words, wordErrorRate } from '../test/helpers/speech.js';
import { HELD_OUT_SENTENCES, SENTENCES as FIRST_SENTENCES, THIRD_SENTENCES } from './sentences.js';

const SETS: Record<string, string[]> = { first: FIRST_SENTENCES, 'held-out': HELD_OUT_SENTENCES, third: THIRD_SENTENCES };
const SET_NAMES = (process.env.SENTENCE_SET ?? 'first,held-out,third').split(',').map((s) => s.trim());
for (const name of SET_NAMES) if (!SETS[name]) throw new Error(`SENTENCE_SET: unknown set "${name}" (${Object.keys(SETS).join(', ')})`);
const PER_SET = Number(process.env.SENTENCES ?? 20);
const SENTENCES = SET_NAMES.flatMap((set) => SETS[set]!.slice(0, PER_SET).map((text) => ({ set, text })));
const ONLY = process.env.VOICES ? new Set(process.env.VOICES.split(',').map((v) => v.trim().toLowerCase())) : null;
const PITCH_VOICES = (process.env.PITCH_VOICES ?? 'Aria').split(',').map((v) => v.trim().toLowerCase());
const PITCHES = (process.env.PITCHES ?? '-4,-2,2,4')
  .split(',')
  .filter((p) => p.trim() !== '')
  .map(Number);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 2);
const MODELS = ['aura-prime', 'aura-max'] as const;

const server = await startBenchServer({ PARLA_STT_DECODERS: String(CONCURRENCY) });
const headers = { 'x-api-key': server.apiKey };

async function synthesize(voice: string, model: string, pitch: number, text: string): Promise<Uint8Array> {
  const body = Buffer.from(JSON.stringify({ text, voice, model, language: 'en-US', format: 'wav', ...(pitch ? { pitch } : {}) }));
  const res = await postFreshBytes(`${server.url}/api/v1/tts/generate`, { ...headers, 'content-type': 'application/json' }, body);
  if (res.status !== 200) throw new Error(`generate ${model} ${voice} ${pitch}: ${res.status} ${res.bytes.toString()}`);
  return new Uint8Array(res.bytes.buffer, res.bytes.byteOffset, res.bytes.byteLength);
}

const listener = cachedTranscriber(server.url, headers, 'cipher-fast');
const transcribe = (wav: Uint8Array) => listener.transcribe(wav);

interface Job {
  voice: string;
  model: string;
  pitch: number;
}

interface Count {
  errors: number;
  words: number;
  /** The same, per sentence set. */
  sets: Map<string, { errors: number; words: number }>;
}

/** Word errors and words of one voice, model and pitch over the sentences. */
async function measure(j: Job): Promise<Count> {
  const c: Count = { errors: 0, words: 0, sets: new Map(SET_NAMES.map((s) => [s, { errors: 0, words: 0 }])) };
  for (const { set, text } of SENTENCES) {
    const heard = await transcribe(await synthesize(j.voice, j.model, j.pitch, text));
    const n = words(text).length;
    const e = Math.round(wordErrorRate(text, heard) * n);
    c.errors += e;
    c.words += n;
    c.sets.get(set)!.errors += e;
    c.sets.get(set)!.words += n;
  }
  return c;
}

try {
  const res = await fetch(`${server.url}/api/v1/voices?model=aura-max&language=en-US`, { headers });
  const listed = ((await res.json()) as { voices: Array<{ name: string; gender: string }> }).voices;
  const voices = listed.filter((v) => !ONLY || ONLY.has(v.name.toLowerCase()));
  const jobs: Job[] = [];
  for (const v of voices) for (const model of MODELS) jobs.push({ voice: v.name, model, pitch: 0 });
  for (const name of PITCH_VOICES) {
    const v = listed.find((x) => x.name.toLowerCase() === name);
    if (v) for (const pitch of PITCHES) for (const model of MODELS) jobs.push({ voice: v.name, model, pitch });
  }
  console.log(
    `${jobs.length} voice-model-pitch cases, ${SENTENCES.length} sentences each, ${CONCURRENCY} in flight, ${cpus().length} cores`,
  );
  const started = performance.now();
  const loads: number[] = [];
  const results = new Map<string, Count>();
  const id = (j: Job) => `${j.voice}|${j.model}|${j.pitch}`;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) {
        const j = jobs[next++]!;
        loads.push(loadavg()[0]!);
        const r = await measure(j);
        results.set(id(j), r);
        console.error(
          `[${results.size}/${jobs.length}] ${j.model} ${j.voice} pitch ${j.pitch}: ${((100 * r.errors) / r.words).toFixed(1)}% (${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)})`,
        );
      }
    }),
  );
  const rows = [...new Map(jobs.map((j) => [`${j.voice}|${j.pitch}`, j])).values()].map((j) => {
    const p = results.get(id({ ...j, model: 'aura-prime' }))!;
    const m = results.get(id({ ...j, model: 'aura-max' }))!;
    const prime = (100 * p.errors) / p.words;
    const max = (100 * m.errors) / m.words;
    const gender = listed.find((v) => v.name === j.voice)?.gender ?? '';
    // Each set's difference, to show how far one set of twenty moves it.
    const perSet = Object.fromEntries(
      SET_NAMES.length > 1
        ? SET_NAMES.map((set) => {
            const ps = p.sets.get(set)!;
            const ms = m.sets.get(set)!;
            return [`${set}: max - prime (points)`, ((100 * (ms.errors - ps.errors)) / ps.words).toFixed(1)];
          })
        : [],
    );
    return {
      voice: j.voice,
      gender,
      'request pitch': j.pitch ? `${j.pitch > 0 ? '+' : ''}${j.pitch} st` : '0',
      'aura-prime WER (%)': prime.toFixed(1),
      'aura-max WER (%)': max.toFixed(1),
      'max - prime (words)': String(m.errors - p.errors),
      'max - prime (points)': (max - prime).toFixed(1),
      'within 1 point': max - prime <= 1 ? 'yes' : 'NO',
      ...perSet,
    };
  });
  const sum = (model: string, pitchZero: boolean, set?: string) => {
    const rs = jobs
      .filter((j) => j.model === model && (j.pitch === 0) === pitchZero)
      .map((j) => (set ? results.get(id(j))!.sets.get(set)! : results.get(id(j))!));
    const e = rs.reduce((a, r) => a + r.errors, 0);
    const w = rs.reduce((a, r) => a + r.words, 0);
    return w ? ((100 * e) / w).toFixed(1) : '-';
  };
  console.log(
    `\nPremium tier, ${new Date().toISOString()}, ${SENTENCES.length} sentences, cipher-fast, ${((performance.now() - started) / 1000).toFixed(0)} s, load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}\n`,
  );
  console.log(
    `All words, voices at their own pitch: aura-prime ${sum('aura-prime', true)}%, aura-max ${sum('aura-max', true)}%; at request pitches: aura-prime ${sum('aura-prime', false)}%, aura-max ${sum('aura-max', false)}%`,
  );
  if (SET_NAMES.length > 1)
    for (const set of SET_NAMES)
      console.log(`  ${set} set alone: aura-prime ${sum('aura-prime', true, set)}%, aura-max ${sum('aura-max', true, set)}%`);
  console.log(`Voices more than 1 point worse on aura-max: ${rows.filter((r) => r['within 1 point'] === 'NO').length} of ${rows.length}\n`);
  console.log(table(rows));
} finally {
  await server.stop();
}
