// TTS engines on their own (no HTTP): milliseconds to synthesize 330 and 3,000 characters of
// English per engine, warm (eSpeak's per-worker init excluded and reported apart), medians of 5.
// Run: node --import tsx bench/tts-engines.ts
import { EnginePool } from '../src/engines/pool.js';
import { EspeakEngine } from '../src/engines/espeak/espeak-engine.js';
import { FliteEngine } from '../src/engines/flite/flite-engine.js';
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

const pool = new EnginePool({ threads: 1, maxQueue: 16 });
const engines: Array<[TtsEngine, string]> = [
  [new EspeakEngine(pool), ''],
  [new FliteEngine(pool), 'slt'],
  [new FliteEngine(pool), 'kal16'],
];
const req = (t: string, engineVoice: string, pitch = 0): SynthesisRequest => ({ text: t, engineVoice, language: 'en-US', speed: 1, pitch, style: 'normal' });

const first = await timeIt(() => engines[0]![0].synthesize(req('Hello.', '')));
console.log(`eSpeak first call on a fresh worker (module init + synthesis): ${first.ms.toFixed(0)} ms`);
console.log('| engine | voice | characters | pitch | median ms | audio s | real-time factor |');
console.log('|---|---|---|---|---|---|---|');
for (const [engine, voice] of engines) {
  for (const [chars, pitch] of [[330, 0], [3000, 0], [330, 12]] as const) {
    const t = text(chars);
    const runs: number[] = [];
    let audio = 0;
    for (let i = 0; i < 5; i++) {
      const r = await timeIt(() => engine.synthesize(req(t, voice, pitch)));
      runs.push(r.ms);
      audio = r.value.samples.length / r.value.sampleRate;
    }
    const ms = median(runs);
    console.log(`| ${engine.id} | ${voice || 'en-us'} | ${t.length} | ${pitch} | ${ms.toFixed(0)} | ${audio.toFixed(1)} | ${(ms / 1000 / audio).toFixed(3)} |`);
  }
}
await pool.close();
