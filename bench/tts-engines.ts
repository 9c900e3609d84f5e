// TTS engines on their own (no HTTP): milliseconds to synthesize 330 and 3,000 characters of
// English per engine, warm (eSpeak's per-worker init excluded and reported apart), medians of 5,
// next to the native espeak-ng CLI on the same text. eSpeak is measured in both its builds: the
// program (audio) and the library (what a request with word timings pays).
// Run: node --import tsx bench/tts-engines.ts
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkerPool } from '../src/tasks/table.js';
import { EspeakEngine } from '../src/engines/espeak/espeak-engine.js';
import { FliteEngine } from '../src/engines/flite/flite-engine.js';
import { FestivalEngine } from '../src/engines/festival/festival-engine.js';
import type { SynthesisRequest, TtsEngine } from '../src/engines/engine.js';
import { median, timeIt } from './lib.js';

const SENTENCES = [
  'The committee met on Tuesday to review the budget for the coming year.',
  'After a long discussion, the members agreed to fund the new library wing.',
  'Construction is expected to begin in the spring and to last about eighteen months.',
  'Local businesses have offered to donate books, furniture and computers.',
  'The mayor thanked everyone who attended and invited residents to share their ideas.',
];
function text(chars: number): string {
  let t = '';
  for (let i = 0; t.length < chars; i++) t += (t ? ' ' : '') + SENTENCES[i % SENTENCES.length];
  return t.slice(0, chars).replace(/\s+\S*$/, '.');
}

const pool = createWorkerPool({ threads: 1, maxQueue: 16 });
const festival = new FestivalEngine(pool);
const engines: Array<[TtsEngine, string, boolean]> = [
  [new EspeakEngine(pool), '', false],
  [new EspeakEngine(pool), '', true],
  // Flite through its addon (the default) and through the program (the fallback, decision #88).
  [new FliteEngine(pool), 'slt', false],
  [new FliteEngine(pool, { id: 'flite (program)', native: false }), 'slt', false],
  [new FliteEngine(pool), 'kal16', false],
  [new FliteEngine(pool, { id: 'flite (program)', native: false }), 'kal16', false],
  // aura-lite's women (issue 20: within 3x the espeak-ng CLI).
  [new FliteEngine(pool, { id: 'flite-lite', voices: ['kal16'] }), 'kal16@185', false],
  [festival, 'cmu_us_slt_arctic_hts', false],
];
const req = (t: string, engineVoice: string, pitch = 0, wordTimings = false): SynthesisRequest => ({
  text: t,
  engineVoice,
  language: 'en-US',
  speed: 1,
  pitch,
  style: 'normal',
  ...(wordTimings ? { wordTimings } : {}),
});

const first = await timeIt(() => engines[0]![0].synthesize(req('Hello.', '')));
console.log(`eSpeak first call on a fresh worker (module init + synthesis): ${first.ms.toFixed(0)} ms`);
await engines[1]![0].synthesize(req('Hello.', '', 0, true));
console.log('| engine | voice | characters | pitch | median ms | audio s | real-time factor |');
console.log('|---|---|---|---|---|---|---|');
for (const [chars] of [[330], [3000]] as const) {
  const t = text(chars);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++)
    runs.push((await timeIt(async () => execFileSync('espeak-ng', ['-w', path.join(tmpdir(), 'parla-bench-cli.wav'), t]))).ms);
  console.log(`| espeak-ng CLI (native) | en-us | ${t.length} | 0 | ${median(runs).toFixed(0)} | - | - |`);
}
for (const [engine, voice, wordTimings] of engines) {
  // Festival's first call starts its process and loads the voice: not part of the figures.
  if (engine === festival) await engine.synthesize(req('Hello.', voice));
  for (const [chars, pitch] of [
    [330, 0],
    [3000, 0],
    [330, 12],
  ] as const) {
    // The service hands Festival ~300-character chunks (TtsEngine.chunkChars); one 3,000-character
    // call is not something it is ever asked.
    if (engine === festival && chars > 1000) continue;
    const t = text(chars);
    const runs: number[] = [];
    let audio = 0;
    for (let i = 0; i < 5; i++) {
      const r = await timeIt(() => engine.synthesize(req(t, voice, pitch, wordTimings)));
      runs.push(r.ms);
      audio = r.value.samples.length / r.value.sampleRate;
    }
    const ms = median(runs);
    console.log(
      `| ${engine.id}${engine.id === 'espeak' ? (wordTimings ? ' (library, word timings)' : ' (program)') : ''} | ${voice || 'en-us'} | ${t.length} | ${pitch} | ${ms.toFixed(0)} | ${audio.toFixed(1)} | ${(ms / 1000 / audio).toFixed(3)} |`,
    );
  }
}
festival.close();
await pool.close();
