// The turn layer (src/stt/live/turns.ts) measured on recordings with natural and inserted pauses,
// with the real recognizer, through the live session as Deepgram Flux's socket runs it (in
// process, recording output; audio fed in 100 ms chunks as fast as the session takes it, so
// latencies are on the audio's timeline: what the rules decide, without the machine's load).
// Both detectors side by side in one run: the script runs itself twice at once, PARLA_VAD=silero
// and PARLA_VAD=webrtc (the detector is chosen once per process), on the same audio.
// - end of speech -> EndOfTurn (defaults) and -> EagerEndOfTurn (eager_eot_threshold 0.5):
//   median, p90, on ten sentences spoken by four of Parla's voices (POST
//   /tts/generate/with-timestamps) and on the five LibriVox recordings, each followed by 2 s of
//   silence; end of speech is the last 20 ms frame louder than -40 dBFS and than a tenth of the
//   recording's level;
// - false turn ends inside a sentence: the same voices' sentences with a 300, 400, 500 or 600 ms
//   pause inserted at a word boundary (from the synthesizer's word timings), after a word that
//   leaves the sentence unfinished ("Please bring the | quarterly report.") and after a content
//   word ("We finished the project | ahead of schedule.");
// - false starts on 5 minutes of noise only (75 s each of white noise, pink noise, music-like
//   tones, keyboard-like clicks; the same seeded noise for both detectors).
// Run: node --import tsx bench/turns.ts (VOICES=n: the first n voices, for a quicker look)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestAccount, createTestApp } from '../test/helpers/app.js';
import { librivox } from '../test/helpers/speech.js';
import { NOISE_KINDS, noise } from '../test/helpers/noise.js';
import { decodeWav } from '../src/audio/wav.js';
import { concatInt16, float32ToInt16 } from '../src/audio/pcm.js';
import { resampleInt16 } from '../src/audio/resample.js';
import { RealtimeSession } from '../src/stt/live/session.js';
import { LiveCredits } from '../src/stt/live-credits.js';
import type { SessionOutput, TurnEvent } from '../src/stt/live/session-output.js';
import { TURN_DEFAULTS, type TurnSettings } from '../src/stt/live/turns.js';
import { median, table } from './lib.js';

const SENTENCES = [
  'Good morning, the meeting starts at nine.',
  'Please bring the quarterly report.',
  'The train to the city leaves from platform four.',
  'I would like a cup of coffee with milk.',
  'We finished the project ahead of schedule.',
  'The weather will be sunny tomorrow afternoon.',
  'Send me the invoice by the end of the week.',
  'My flight lands in Boston at six.',
  'The library closes early on Sundays.',
  'Turn left at the second traffic light.',
];
/** Pauses after a word that leaves the sentence unfinished: [sentence, words before the pause]. */
const CUT_FUNCTION: Array<[number, number]> = [
  [1, 3],
  [2, 7],
  [3, 6],
  [6, 8],
  [7, 6],
  [9, 4],
];
/** Pauses after a content word: the words before them read as a finished sentence or phrase. */
// (Not "Good morning, | ...": the voices already pause at its comma, so the pause would be longer.)
const CUT_CONTENT: Array<[number, number]> = [
  [6, 4],
  [1, 4],
  [5, 5],
  [9, 5],
  [4, 4],
  [8, 4],
];
const PAUSES_MS = [300, 400, 500, 600];
const VOICES: Array<[string, string]> = [
  ['aura-prime', 'Aria'],
  ['aura-prime', 'Orion'],
  ['aura-max', 'Aria'],
  ['aura-lite', 'Leo'],
].slice(0, Number(process.env.VOICES ?? 4)) as Array<[string, string]>;

interface Figures {
  detector: string;
  eot: number[];
  eager: number[];
  missed: number;
  libEot: number[];
  libEager: number[];
  fn: { ends: number; pauses: number };
  content: { ends: number; pauses: number };
  noise: Record<string, number>;
  noiseSeconds: number;
}

if (process.env.BENCH_TURNS_CHILD) {
  process.stdout.write(`@@${JSON.stringify(await measure())}\n`);
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const child = (vad: string) =>
  new Promise<Figures>((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', self], {
      env: { ...process.env, PARLA_VAD: vad, BENCH_TURNS_CHILD: '1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('@@'));
      if (code !== 0 || !line) reject(new Error(`${vad}: exit ${code}\n${out}`));
      else resolve(JSON.parse(line.slice(2)) as Figures);
    });
  });
const [silero, webrtc] = await Promise.all([child('silero'), child('webrtc')]);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
};
const lat = (xs: number[]) => `${Math.round(median(xs))} / ${Math.round(pct(xs, 0.9))} (n ${xs.length})`;
const share = (x: { ends: number; pauses: number }) => `${x.ends}/${x.pauses} (${((100 * x.ends) / x.pauses).toFixed(0)}%)`;
const both = (f: Figures) => ({ ends: f.fn.ends + f.content.ends, pauses: f.fn.pauses + f.content.pauses });
const noiseCell = (f: Figures) =>
  `${Object.values(f.noise).reduce((a, b) => a + b, 0)} (${Object.entries(f.noise)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')})`;
console.log(`detector check: ${silero.detector} / ${webrtc.detector}`);
console.log(
  table([
    {
      measure: `end of speech -> EndOfTurn (defaults), Parla voices, median / p90 ms`,
      silero: lat(silero.eot),
      webrtc: lat(webrtc.eot),
      goal: 'median under 400',
    },
    {
      measure: 'end of speech -> first end (EagerEndOfTurn, eager 0.5), Parla voices, median / p90 ms',
      silero: lat(silero.eager),
      webrtc: lat(webrtc.eager),
      goal: 'under 250',
    },
    {
      measure: 'end of speech -> EndOfTurn (defaults), LibriVox, median / p90 ms',
      silero: lat(silero.libEot),
      webrtc: lat(webrtc.libEot),
      goal: 'median under 400',
    },
    {
      measure: 'end of speech -> first end (EagerEndOfTurn, eager 0.5), LibriVox, median / p90 ms',
      silero: lat(silero.libEager),
      webrtc: lat(webrtc.libEager),
      goal: 'under 250',
    },
    {
      measure: 'false turn ends, 300-600 ms pause after an unfinishing word',
      silero: share(silero.fn),
      webrtc: share(webrtc.fn),
      goal: 'under 10%',
    },
    {
      measure: 'false turn ends, 300-600 ms pause after a content word',
      silero: share(silero.content),
      webrtc: share(webrtc.content),
      goal: 'under 10%',
    },
    { measure: 'false turn ends, all mid-sentence pauses', silero: share(both(silero)), webrtc: share(both(webrtc)), goal: 'under 10%' },
    {
      measure: `false StartOfTurn on ${Math.round(silero.noiseSeconds)} s of noise`,
      silero: noiseCell(silero),
      webrtc: noiseCell(webrtc),
      goal: '0 in 5 minutes',
    },
  ]),
);
// The prosody's cost on the event loop (it runs beside the VAD on every stream with turns): 20 s
// of a voiced tone, best of 3.
{
  const { Prosody } = await import('../src/stt/live/prosody.js');
  const tone = Int16Array.from({ length: 20 * 16000 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 140 * i) / 16000)));
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const p = new Prosody(0.02);
    const t0 = performance.now();
    for (let i = 0; i < tone.length; i += 1600) p.push(tone.subarray(i, i + 1600));
    best = Math.min(best, performance.now() - t0);
  }
  console.log(`prosody (pitch and level) cost: ${(best / 20).toFixed(2)} ms per second of voiced audio`);
}
if (silero.missed || webrtc.missed) console.log(`sentences without a pause EndOfTurn: silero ${silero.missed}, webrtc ${webrtc.missed}`);

async function measure(): Promise<Figures> {
  const { vadKind } = await import('../src/audio/live-vad.js');
  const t = await createTestApp();
  await t.services.registry.whenReady();
  const { apiKey } = await createTestAccount(t.services, { credits: 10_000_000 });
  const auth = await t.services.authenticator.authenticate(apiKey);

  const to16k = (bytes: Uint8Array) => {
    const w = decodeWav(bytes);
    return resampleInt16(float32ToInt16(w.channels[0]!), w.sampleRate, 16000);
  };
  /** Index after the last 20 ms frame louder than -40 dBFS and a tenth of the recording's level. */
  function speechEnd(pcm: Int16Array): number {
    const rms: number[] = [];
    for (let i = 0; i + 320 <= pcm.length; i += 320) {
      let e = 0;
      for (let j = i; j < i + 320; j++) e += pcm[j]! * pcm[j]!;
      rms.push(Math.sqrt(e / 320));
    }
    const level = [...rms].sort((a, b) => a - b)[Math.floor(rms.length * 0.9)] ?? 0;
    for (let f = rms.length - 1; f >= 0; f--) if (rms[f]! > Math.max(328, level / 10)) return (f + 1) * 320;
    return 0;
  }
  const silence = (seconds: number) => new Int16Array(Math.round(seconds * 16000));
  const join = concatInt16;

  async function run(pcm: Int16Array, turns: TurnSettings): Promise<TurnEvent[]> {
    const events: TurnEvent[] = [];
    let done!: () => void;
    const closed = new Promise<void>((r) => (done = r));
    const noop = () => undefined;
    const output: SessionOutput = {
      opened: noop,
      speechStarted: noop,
      results: noop,
      utteranceEnd: noop,
      error: noop,
      summary: noop,
      close: () => done(),
      pause: noop,
      resume: noop,
      turn: (e) => events.push(e),
    };
    const params = {
      model: 'cipher-fast' as const,
      language: 'en',
      encoding: 'linear16' as const,
      sampleRate: 16000,
      interimResults: false,
      endpointing: 0,
      utteranceEndMs: 10_000,
      punctuate: true,
      smartFormat: true,
      keywords: [],
    };
    const work = await t.services.billing.begin(auth, {
      requestId: `req_bench_${Date.now()}_${Math.random()}`,
      kind: 'stt_realtime',
      model: 'cipher-fast',
      credits: 200,
      characters: 0,
    });
    const stream = await t.services.registry
      .sttBinding('cipher-fast')!
      .engine.openStream({ language: 'en', profile: 'fast', keywords: [] });
    const s = new RealtimeSession(output, {
      requestId: 'req_bench',
      params,
      language: 'en',
      engine: 'pocketsphinx',
      stream,
      credits: new LiveCredits(work, { heldSeconds: 100, creditsPerSecond: 2, blockSeconds: 60 }),
      idleTimeoutMs: 60_000,
      maxSessionSeconds: 600,
      turns: { ...turns },
      onEnd: () => undefined,
    });
    await s.start();
    for (let i = 0; i < pcm.length; i += 1600)
      s.onAudio(Buffer.from(pcm.buffer, pcm.byteOffset + i * 2, Math.min(1600, pcm.length - i) * 2));
    await s.end('client_closed');
    await closed;
    return events;
  }

  const f: Figures = {
    detector: (await vadKind()).kind,
    eot: [],
    eager: [],
    missed: 0,
    libEot: [],
    libEager: [],
    fn: { ends: 0, pauses: 0 },
    content: { ends: 0, pauses: 0 },
    noise: {},
    noiseSeconds: 0,
  };
  async function latency(speech: Int16Array, eot: number[], eager: number[]): Promise<void> {
    const end = speechEnd(speech);
    const pcm = join([silence(0.3), speech.subarray(0, end), silence(2)]);
    const speechEndAt = 0.3 + end / 16000;
    const a = (await run(pcm, TURN_DEFAULTS)).filter((x) => x.event === 'EndOfTurn' && x.trigger === 'pause' && x.end >= speechEndAt);
    if (a[0]) eot.push((a[0].end - speechEndAt) * 1000);
    else f.missed++;
    // The first end an agent can act on: EagerEndOfTurn, or EndOfTurn when the confidence passed
    // both thresholds at once (Flux then sends no eager end).
    const g = (await run(pcm, { ...TURN_DEFAULTS, eagerEotThreshold: 0.5 })).find(
      (x) => (x.event === 'EagerEndOfTurn' || x.event === 'EndOfTurn') && x.end >= speechEndAt,
    );
    if (g) eager.push((g.end - speechEndAt) * 1000);
  }

  // 1. Parla's voices: latency on whole sentences, false ends at inserted pauses.
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  for (const [model, voice] of VOICES) {
    for (let si = 0; si < SENTENCES.length; si++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tts/generate/with-timestamps',
        headers,
        payload: { text: SENTENCES[si], voice, model, format: 'wav' },
      });
      if (r.statusCode !== 200) throw new Error(`${model} ${voice}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      const j = r.json() as { audio_base64: string; words: Array<{ start: number; end: number }> };
      const speech = to16k(Buffer.from(j.audio_base64, 'base64'));
      await latency(speech, f.eot, f.eager);
      for (const [cuts, into] of [
        [CUT_FUNCTION, f.fn],
        [CUT_CONTENT, f.content],
      ] as const) {
        for (const [sentence, wordsBefore] of cuts) {
          if (sentence !== si) continue;
          const at = Math.round(j.words[wordsBefore - 1]!.end * 16000);
          const end = speechEnd(speech);
          for (const ms of PAUSES_MS) {
            const pcm = join([silence(0.3), speech.subarray(0, at), silence(ms / 1000), speech.subarray(at, end), silence(2)]);
            const sentenceEnd = (pcm.length - 32000) / 16000;
            const events = await run(pcm, TURN_DEFAULTS);
            into.pauses++;
            const early = events.find((e) => e.event === 'EndOfTurn' && e.end < sentenceEnd - 0.05);
            if (early) into.ends++;
            if (early && process.env.BENCH_DEBUG)
              console.error(
                `false end: ${voice} "${early.transcript}" +${ms} ms at ${early.end.toFixed(2)} (cut at ${(0.3 + at / 16000).toFixed(2)}) conf ${early.confidence}`,
              );
          }
        }
      }
    }
  }
  // 2. LibriVox: read speech with its own natural pauses; the latency at the recording's end.
  for (const { file } of librivox()) await latency(to16k(readFileSync(file)), f.libEot, f.libEager);

  // 3. Noise only: 75 s each, seeded, so both detectors hear the same samples.
  for (const kind of NOISE_KINDS) {
    const pcm = noise(kind, 75);
    f.noiseSeconds += pcm.length / 16000;
    f.noise[kind] = (await run(pcm, TURN_DEFAULTS)).filter((e) => e.event === 'StartOfTurn').length;
  }
  await t.close();
  return f;
}
