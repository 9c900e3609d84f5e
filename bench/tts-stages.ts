// Where the time of a /tts/generate goes, stage by stage (no HTTP: the same calls the route makes,
// on a real worker pool), for the 3,000-character English text of bench/tts.ts on aura-lite
// (eSpeak, voice Aria = en-us+f3): the sentence chunks synthesized in parallel, the WAV file, the
// finishing task (join, encode) of the other formats, moving PCM between threads, and the cost of
// the DSP steps other requests use (resampling for /tts/stream, pitch shift, whisper).
// Medians of RUNS (default 5). Run: node --import tsx bench/tts-stages.ts
import { loadavg } from 'node:os';
import { createWorkerPool } from '../src/tasks/table.js';
import { EspeakEngine } from '../src/engines/espeak/espeak-engine.js';
import { renderItems, type VoiceParams } from '../src/tts/speak-items.js';
import { finishDocument } from '../src/tts/finish.js';
import { resampleInt16 } from '../src/audio/resample.js';
import { pitchShift } from '../src/audio/dsp/time-pitch.js';
import { whisperize } from '../src/tts/dsp/whisper.js';
import { wavStream } from '../src/audio/wav.js';
import { synthesizeEspeak } from '../src/engines/espeak/espeak-worker.js';
import { level } from '../src/audio/dsp/level.js';
import { integratedLoudness } from '../src/engines/studio/finishing.js';
import { TARGET_LUFS } from '../src/tts/levels.js';
import { median, table, timeIt } from './lib.js';

const RUNS = Math.max(5, Number(process.env.RUNS ?? 5));
const THREADS = Number(process.env.PARLA_WORKERS ?? 2);
const SENTENCE = 'The committee reviewed the proposal carefully and agreed to continue the project next quarter. ';
const TEXT = SENTENCE.repeat(40).slice(0, 3000);

const pool = createWorkerPool({ threads: THREADS, maxQueue: 64 });
const engine = new EspeakEngine(pool);
const voice: VoiceParams = { engine, engineVoice: 'f3:55', language: 'en-US', speed: 1, pitch: 0 };
const items = [{ type: 'text' as const, text: TEXT, whisper: false, emphasis: false }];
const loadStart = loadavg()[0]!;

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push((await timeIt(fn)).ms);
  return median(xs);
}

try {
  // Warm every worker and the JIT.
  for (let i = 0; i < 2; i++) await renderItems(pool, voice, items);
  const rows: Array<Record<string, string | number>> = [];
  const audio = (await renderItems(pool, voice, items))!;
  const seconds = audio.samples.length / audio.sampleRate;

  const single = await medianMs(() =>
    synthesizeEspeak({ text: TEXT, voice: 'en-us+f3', wpm: 175, basePitch: 55, semitones: 0, emphasis: false }),
  );
  rows.push({
    stage: 'eSpeak synthesis, whole text, one call on the main thread (no pool)',
    ms: single,
    note: `${seconds.toFixed(1)} s of audio`,
  });
  // The output stage on the synthesis as it comes (the limiter alone at gain 0 leaves eSpeak's quiet
  // voice as it is), at the gain that brings it to the loudness target as the calibrated gains do:
  // every sample's true peak interpolated, then only near loud samples (decision #104).
  const raw = await synthesizeEspeak({ text: TEXT, voice: 'en-us+f3', wpm: 175, basePitch: 55, semitones: 0, emphasis: false, gainDb: 0 });
  const gainDb =
    TARGET_LUFS -
    integratedLoudness(
      Float32Array.from(raw.samples, (v) => v / 32768),
      raw.sampleRate,
    );
  for (const exhaustive of [true, false])
    rows.push({
      stage: `output stage (DC high-pass, gain ${gainDb.toFixed(1)} dB, true-peak limiter), whole text, ${exhaustive ? 'every sample interpolated' : 'only near loud samples'}`,
      ms: await medianMs(async () => level(raw.samples, raw.sampleRate, { gainDb, dc: true, exhaustive })),
      note: '(main thread here; a worker in the service)',
    });
  rows.push({
    stage: `synthesis in sentence chunks on ${THREADS} workers (renderItems: pool, PCM moved back, joined)`,
    ms: await medianMs(() => renderItems(pool, voice, items)),
    note: '',
  });

  rows.push({
    stage: 'WAV file streamed on the main thread (header + views of the PCM renderItems joined, no copy; what /tts/generate does for wav)',
    ms: await medianMs(async () => {
      for await (const chunk of wavStream([audio.samples], audio.sampleRate).body) void chunk;
    }),
    note: '',
  });
  for (const format of ['mp3', 'ogg', 'flac'] as const) {
    // finishDocument moves the PCM to the worker, so each run gets its own copy.
    rows.push({
      stage: `finish task: join + encode ${format}`,
      ms: await medianMs(() =>
        finishDocument(pool, [{ samples: audio.samples.slice(), sampleRate: audio.sampleRate }], [], audio.sampleRate, format),
      ),
      note: '',
    });
  }

  const copy = await medianMs(async () => structuredClone(audio.samples));
  rows.push({
    stage: 'copying the PCM once between threads (structured clone; now moved instead)',
    ms: copy,
    note: `${(audio.samples.byteLength / 1e6).toFixed(1)} MB`,
  });
  rows.push({ stage: 'pool round trip of an empty task', ms: await medianMs(() => pool.run('pool.echo', { value: 1 })), note: '' });

  const oneSecond = audio.samples.subarray(0, audio.sampleRate * 10);
  const perSecond = async (fn: () => unknown) => (await medianMs(async () => fn())) / 10;
  rows.push({
    stage: 'resample 22,050 -> 24,000 Hz, per audio second',
    ms: await perSecond(() => resampleInt16(oneSecond, audio.sampleRate, 24000)),
    note: '(main thread here; a worker in the service)',
  });
  rows.push({
    stage: 'pitch shift +2 st (WSOLA + resample), per audio second',
    ms: await perSecond(() => pitchShift(oneSecond, audio.sampleRate, 2)),
    note: '',
  });
  rows.push({
    stage: 'whisper transform (LPC + noise), per audio second',
    ms: await perSecond(() => whisperize(oneSecond, audio.sampleRate)),
    note: '',
  });

  console.log(
    `TTS stages, ${new Date().toISOString()}, ${THREADS} workers, ${RUNS} runs each, medians; load average ${loadStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end\n`,
  );
  console.log(table(rows));
} finally {
  await pool.close();
}
