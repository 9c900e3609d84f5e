// Intelligibility of Parla's own TTS (issue 4, benchmark 3): 20 fixed English sentences spoken by
// every English voice of every TTS model (POST /tts/generate, WAV), each transcribed through
// POST /stt/transcribe, word error rate per voice against the sentence text.
// Voices: GET /voices?model=<aura model>&language=en-US (the 30 Aura voices on aura-lite,
// aura-prime, aura-max and rapid-max) and the English Flash voices of rapid-flash (en-US, en-GB,
// en-AU, en-IN, each in its own language).
// A recording identical to one already transcribed (models that render a voice the same way) is
// not sent again: the recognizer is deterministic, so it would get the same words.
// Beside every voice: the native Flite voice of its gender, run directly (CLI) on the same
// sentences through the same recognizer (female: `flite -voice slt`; male: the best of kal16,
// rms and awb), and the voice's distance from it in points (issue 20: within 10 points, aura-lite
// within 15).
// Run: node --import tsx bench/intelligibility.ts
//   STT_MODEL (default cipher-fast: the whole run takes about 10 minutes on 2 cores), CONCURRENCY
//   (voices in flight, default 2), MODELS (comma list), VOICES (comma list of names, to iterate
//   on a subset), SENTENCES (the first n sentences)
import { cpus, loadavg } from 'node:os';
import { median, postFreshBytes, startBenchServer, table } from './lib.js';
import { cachedTranscriber } from './transcriber.js';
import { words, wordErrorRate } from '../test/helpers/speech.js';

import { SENTENCES as ALL_SENTENCES } from './sentences.js';
import { BASELINES, measureCandidate } from './native-voices.js';

export const SENTENCES = ALL_SENTENCES.slice(0, Number(process.env.SENTENCES ?? ALL_SENTENCES.length));
const ONLY_VOICES = process.env.VOICES ? new Set(process.env.VOICES.split(',').map((v) => v.toLowerCase())) : null;

const STT_MODEL = process.env.STT_MODEL ?? 'cipher-fast';
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 2);
const MODELS = (process.env.MODELS ?? 'aura-lite,aura-prime,aura-max,rapid-max,rapid-flash').split(',');

interface Voice {
  model: string;
  name: string;
  id: string;
  language: string;
  gender: 'female' | 'male';
}

const server = await startBenchServer({ PARLA_STT_DECODERS: String(CONCURRENCY) });
const headers = { 'x-api-key': server.apiKey };

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`, { headers });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function englishVoices(model: string): Promise<Voice[]> {
  if (model === 'rapid-flash') {
    const r = await getJson<{ voices_by_language: Record<string, Array<{ name: string; gender: 'female' | 'male' }>> }>(
      `/api/v1/voices?model=rapid-flash`,
    );
    return Object.entries(r.voices_by_language)
      .filter(([code]) => code.startsWith('en'))
      .flatMap(([language, vs]) => vs.map((v) => ({ model, name: v.name, id: v.name, language, gender: v.gender })));
  }
  const r = await getJson<{ voices: Array<{ id: string; name: string; gender: 'female' | 'male' }> }>(
    `/api/v1/voices?model=${model}&language=en-US`,
  );
  return r.voices.map((v) => ({ model, name: v.name, id: v.id, language: 'en-US', gender: v.gender }));
}

async function synthesize(v: Voice, text: string): Promise<Uint8Array> {
  const body = Buffer.from(JSON.stringify({ text, voice: v.name, model: v.model, language: v.language, format: 'wav' }));
  const res = await postFreshBytes(`${server.url}/api/v1/tts/generate`, { ...headers, 'content-type': 'application/json' }, body);
  if (res.status !== 200) throw new Error(`generate ${v.model} ${v.name}: ${res.status} ${res.bytes.toString()}`);
  return new Uint8Array(res.bytes.buffer, res.bytes.byteOffset, res.bytes.byteLength);
}

const listener = cachedTranscriber(server.url, headers, STT_MODEL);
const transcribe = (wav: Uint8Array) => listener.transcribe(wav);

interface VoiceResult {
  voice: Voice;
  errors: number;
  words: number;
  /** The sentence heard worst, for the report. */
  worst: { text: string; heard: string; wer: number };
}

async function measure(v: Voice): Promise<VoiceResult> {
  let errors = 0;
  let total = 0;
  let worst = { text: '', heard: '', wer: -1 };
  for (const text of SENTENCES) {
    const heard = await transcribe(await synthesize(v, text));
    const n = words(text).length;
    const wer = wordErrorRate(text, heard);
    errors += Math.round(wer * n);
    total += n;
    if (wer > worst.wer) worst = { text, heard, wer };
  }
  return { voice: v, errors, words: total, worst };
}

try {
  const voices = (await Promise.all(MODELS.map(englishVoices))).flat().filter((v) => !ONLY_VOICES || ONLY_VOICES.has(v.name.toLowerCase()));
  // The native baselines first (one at a time: they are CLI runs and recognitions).
  const native = new Map<string, number>();
  for (const name of BASELINES) {
    const r = await measureCandidate(server.url, server.apiKey, name, SENTENCES);
    native.set(name, (100 * r.errors) / r.words);
  }
  const bestMale = ['flite kal16', 'flite rms', 'flite awb'].reduce((a, b) => (native.get(a)! <= native.get(b)! ? a : b));
  const baseline = { female: { name: 'flite slt', wer: native.get('flite slt')! }, male: { name: bestMale, wer: native.get(bestMale)! } };
  console.log(
    `Native baselines (CLI, same sentences and recognizer): ${[...native].map(([n, w]) => `${n} ${w.toFixed(1)}%`).join(', ')}; female: ${baseline.female.name}, male: ${baseline.male.name}`,
  );
  console.log(
    `${voices.length} English voices on ${MODELS.length} models, ${SENTENCES.length} sentences each, transcribed with ${STT_MODEL}, ${CONCURRENCY} voices at a time`,
  );
  const started = performance.now();
  const loads: number[] = [];
  const results: VoiceResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < voices.length) {
        const v = voices[next++]!;
        loads.push(loadavg()[0]!);
        const r = await measure(v);
        results.push(r);
        const s = ((performance.now() - started) / 1000).toFixed(0);
        console.log(
          `[${results.length}/${voices.length}] ${v.model} ${v.name} (${v.id}, ${v.language}, ${v.gender}): WER ${((100 * r.errors) / r.words).toFixed(1)}%, native ${baseline[v.gender].wer.toFixed(1)}%  (${s} s, ${listener.sent} recordings transcribed, load ${loadavg()[0]!.toFixed(2)})`,
        );
      }
    }),
  );
  const order = new Map(voices.map((v, i) => [v, i]));
  results.sort((a, b) => order.get(a.voice)! - order.get(b.voice)!);
  const pct = (r: VoiceResult) => (100 * r.errors) / r.words;
  const over = (r: VoiceResult) => pct(r) - baseline[r.voice.gender].wer;
  const allowed = (r: VoiceResult) => (r.voice.model === 'aura-lite' ? 15 : 10);
  console.log(
    `\nTTS intelligibility, ${new Date().toISOString()}, ${voices.length} voices x ${SENTENCES.length} sentences, ${STT_MODEL}, ` +
      `${listener.sent} distinct recordings transcribed, ${((performance.now() - started) / 1000).toFixed(0)} s, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
  );
  console.log(
    table(
      MODELS.filter((model) => results.some((r) => r.voice.model === model)).map((model) => {
        const rs = results.filter((r) => r.voice.model === model);
        const all = rs.reduce((a, r) => ({ e: a.e + r.errors, w: a.w + r.words }), { e: 0, w: 0 });
        const sorted = [...rs].sort((a, b) => pct(a) - pct(b));
        return {
          model,
          voices: rs.length,
          'WER all (%)': (100 * all.e) / all.w,
          'median voice (%)': median(rs.map(pct)),
          best: `${sorted[0]!.voice.name} ${pct(sorted[0]!).toFixed(1)}`,
          worst: `${sorted.at(-1)!.voice.name} ${pct(sorted.at(-1)!).toFixed(1)}`,
          'within target of native': `${rs.filter((r) => over(r) <= allowed(r)).length}/${rs.length}`,
        };
      }),
    ),
  );
  console.log('\nPer voice:\n');
  console.log(
    table(
      results.map((r) => ({
        model: r.voice.model,
        voice: r.voice.name,
        id: r.voice.id,
        language: r.voice.language,
        gender: r.voice.gender,
        'WER (%)': pct(r),
        errors: `${r.errors}/${r.words}`,
        native: `${baseline[r.voice.gender].name} ${baseline[r.voice.gender].wer.toFixed(1)}`,
        'points over native': over(r),
        'within target': over(r) <= allowed(r) ? 'yes' : 'NO',
      })),
    ),
  );
  const worst = [...results].sort((a, b) => pct(b) - pct(a)).slice(0, 5);
  console.log('\nWorst-heard sentence of the five least intelligible voices:');
  for (const r of worst) console.log(`- ${r.voice.model} ${r.voice.name}: "${r.worst.text}" -> "${r.worst.heard}"`);
} finally {
  await server.stop();
}
