// Where long recordings are cut (issue 31 §3, decision #72), side by side in one run: Silero VAD's
// pauses vs WebRTC's VAD's (the fallback), on two servers alike but for PARLA_VAD, pieces of
// PIECE seconds (15 by default, half Parla's 30, for more cuts per minute), RUNS runs alternating.
// Material: (1) the five LibriVox recordings of pocketsphinx-testdata joined 0.3 s apart, REPEATS
// times over; (2) Flite sentences with pauses inserted mid-sentence over pink noise, whose speech
// spans are known (test/helpers/paused-speech.ts). Reported: word error rate of the joined
// transcript, cuts that fall inside speech (material 2) and planning time (in this process, the
// stt.plan task's own function). Goal: Silero's word error rate no worse, no cut inside speech.
// PocketSphinx's word error rate on the same pieces differs from one server process to the next
// (docs/benchmarks.md, "Long recordings in parallel"), so COPIES server processes run per
// detector and the word error rate is reported as the median and range over all of them.
// Run: npm run build; node --import tsx bench/long-cuts.ts   (RUNS 3, REPEATS 6, MODEL cipher-max,
// COPIES 1)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { median, postFresh, startBenchServer, table, timeIt, type BenchServer } from './lib.js';
import { float32ToInt16 } from '../src/audio/pcm.js';
import { sileroModelPath } from '../src/audio/silero-vad.js';
import { decodeWav } from '../src/audio/wav.js';
import { planLongAudio } from '../src/stt/long-audio/plan-task.js';
import { librivox, soxConcat, wordErrorRate } from '../test/helpers/speech.js';
import { cutMargins, pausedSpeech } from '../test/helpers/paused-speech.js';
import { multipart } from '../test/helpers/multipart.js';

const RUNS = Number(process.env.RUNS ?? 3);
const REPEATS = Number(process.env.REPEATS ?? 6);
const MODEL = process.env.MODEL ?? 'cipher-max';
const PIECE = process.env.PIECE ?? '15';
const COPIES = Number(process.env.COPIES ?? 1);
const RATE = 16000;

const files = librivox();
const libri = soxConcat(Array.from({ length: REPEATS }, () => files.map((f) => f.file)).flat(), 0.3);
const libriReference = Array.from({ length: REPEATS }, () => files.map((f) => f.reference).join(' ')).join(' ');
const paused = pausedSpeech(4);
const sets = [
  {
    name: `LibriVox x${REPEATS}`,
    file: libri,
    reference: libriReference,
    pcm: float32ToInt16(decodeWav(readFileSync(libri)).channels[0]!),
    spans: null,
  },
  { name: 'Flite, mid-sentence pauses, pink noise', file: paused.file, reference: paused.reference, pcm: paused.pcm, spans: paused.spans },
];
const secondsOf = (file: string) => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }));

async function transcribe(server: BenchServer, file: string): Promise<string> {
  const upload = await multipart(readFileSync(file), { model: MODEL, smart_format: 'false', punctuate: 'false' });
  const res = await postFresh(
    `${server.url}/api/v1/stt/transcribe`,
    { 'x-api-key': server.apiKey, 'content-type': upload.contentType },
    upload.body,
  );
  if (res.status !== 200) throw new Error(`transcribe: ${res.status} ${res.body.slice(0, 300)}`);
  return (JSON.parse(res.body) as { text: string }).text;
}

const model = sileroModelPath();
if (!model) throw new Error('the Silero model (@ricky0123/vad-web) is not installed');
const common = { PARLA_STT_DECODERS: '2', PARLA_STT_PRELOAD: 'true', PARLA_STT_PIECE_SECONDS: PIECE, PARLA_STT_LONG_SECONDS: '10' };
const detectors = [
  { name: 'silero', env: { PARLA_VAD: 'silero' }, plan: { silero: model } },
  { name: 'webrtc', env: { PARLA_VAD: 'webrtc' }, plan: {} },
] as const;
const servers = new Map<string, BenchServer[]>();
let port = 19010;
for (const d of detectors) {
  const copies: BenchServer[] = [];
  for (let c = 0; c < COPIES; c++)
    copies.push(await startBenchServer({ ...common, ...d.env, PORT: String(port++), REALTIME_PORT: String(port++) }));
  servers.set(d.name, copies);
}
try {
  const loads: number[] = [];
  const rows: Array<Record<string, string | number>> = [];
  for (const set of sets) {
    const got = new Map(detectors.map((d) => [d.name, { wer: [] as number[], planMs: [] as number[], pieces: 0, inside: 0, margin: 0 }]));
    for (let i = 0; i < RUNS; i++) {
      for (const d of detectors) {
        loads.push(loadavg()[0]!);
        const g = got.get(d.name)!;
        const { ms, value: plan } = await timeIt(() => planLongAudio(set.pcm, Number(PIECE), {}, d.plan));
        g.planMs.push(ms);
        g.pieces = plan.pieces.length;
        if (set.spans) {
          const m = cutMargins(
            plan.pieces.slice(0, -1).map((p) => p.end / RATE),
            set.spans,
          );
          g.inside = m.filter((x) => x < 0).length;
          g.margin = Math.min(...m);
        }
        for (const [c, server] of servers.get(d.name)!.entries()) {
          g.wer.push(wordErrorRate(set.reference, await transcribe(server, set.file)));
          console.error(
            `${set.name} run ${i + 1} ${d.name} server ${c + 1}: WER ${(100 * g.wer.at(-1)!).toFixed(2)}%, ${g.pieces} pieces, plan ${ms.toFixed(0)} ms`,
          );
        }
      }
    }
    const s = got.get('silero')!;
    const w = got.get('webrtc')!;
    const label = `${set.name} (${secondsOf(set.file).toFixed(0)} s, ${set.reference.split(/\s+/).length} words)`;
    const werOf = (xs: number[]) =>
      `${(100 * median(xs)).toFixed(2)}${COPIES > 1 ? ` (${(100 * Math.min(...xs)).toFixed(2)}-${(100 * Math.max(...xs)).toFixed(2)})` : ''}`;
    rows.push({
      benchmark: `${label}: word error rate (%)`,
      silero: werOf(s.wer),
      webrtc: werOf(w.wer),
      goal: 'silero <= webrtc',
      met: median(s.wer) <= median(w.wer) ? 'met' : 'not met',
    });
    rows.push({ benchmark: '  pieces', silero: s.pieces, webrtc: w.pieces, goal: '', met: '' });
    if (set.spans) {
      rows.push({
        benchmark: '  cuts inside speech (closest cut to speech, s)',
        silero: `${s.inside} (${s.margin.toFixed(2)})`,
        webrtc: `${w.inside} (${w.margin.toFixed(2)})`,
        goal: '0',
        met: s.inside === 0 ? 'met' : 'not met',
      });
    }
    rows.push({
      benchmark: '  planning time (ms, this process)',
      silero: Math.round(median(s.planMs)),
      webrtc: Math.round(median(w.planMs)),
      goal: '',
      met: '',
    });
  }
  loads.push(loadavg()[0]!);
  console.log(
    `Long-recording cuts, Silero vs WebRTC VAD, ${new Date().toISOString()}, ${MODEL}, pieces of ${PIECE} s, 2 decoders, ${RUNS} runs each, medians, ${COPIES} server process(es) per detector, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
  );
  console.log(table(rows));
} finally {
  for (const copies of servers.values()) for (const s of copies) await s.stop();
}
