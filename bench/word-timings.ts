// Word-timing accuracy of POST /tts/generate/with-timestamps: the boundaries (every word's start
// and end) that PocketSphinx forced alignment puts on synthesized audio, against references that
// come from the synthesizer itself:
//   - Flite: its own segment end times (`flite -psdur`), grouped into words by each word's phone
//     count (`flite -ps` on the word alone; a sentence whose counts do not add up is left out);
//   - eSpeak NG: its own word events (the library build, as the endpoint uses them), against the
//     alignment of the same eSpeak audio.
// Also the alignment's cost (ms per second of audio). Prints a table for docs/benchmarks.md.
// Then a set rich in numbers, dates, money and abbreviations (issue 29, item 4), Flite slt: before,
// the engine read the text as written and the aligner was given its tokens ("1" and "250" for "one
// thousand two hundred fifty"): the plain words (no digit, sign or abbreviation) against Flite's
// own times of that text, its phones grouped by each written token's phone count; after, the
// spoken form (src/tts/spoken-words.ts) as the endpoint does it: every written word.
// Run: node --import tsx bench/word-timings.ts [--numbers]
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkerPool } from '../src/tasks/table.js';
import { EspeakEngine } from '../src/engines/espeak/espeak-engine.js';
import { ForcedAligner } from '../src/engines/pocketsphinx/aligner.js';
import { decodePcm16MonoWav } from '../src/audio/wav.js';
import { resampleInt16 } from '../src/audio/resample.js';
import { fillGaps, spansFromEvents, spokenWords } from '../src/tts/timestamps.js';
import { asWritten, spokenPlan } from '../src/tts/spoken-words.js';
import { median } from './lib.js';

// Public-domain sentences (Sense and Sensibility, and everyday English), no digits: Flite's word
// relation then has exactly the words of the text.
const SENTENCES = [
  'And Mister John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.',
  'He was not an ill disposed young man.',
  'Unless to be rather cold hearted and rather selfish is to be ill disposed.',
  'Had he married a more amiable woman, he might have been made still more respectable than he was.',
  'He might even have been made amiable himself.',
  'The quick brown fox jumps over the lazy dog.',
  'Please call me back at the office tomorrow morning.',
  'The weather today is sunny with a light breeze from the west.',
  'She bought three apples and a loaf of bread at the market.',
  'Our meeting has been moved to Thursday afternoon.',
  'The train to the city leaves every twenty minutes.',
  'He opened the window and listened to the rain.',
  'Remember to turn off the lights before you leave the house.',
  'The children were playing in the park near the river.',
  'We need more time to finish the project properly.',
];

interface Span {
  start: number;
  end: number;
}

const aligner = new ForcedAligner({ decoders: 1 });
let alignMs = 0;
let alignedSeconds = 0;

async function align(pcm16k: Int16Array, text: string): Promise<Span[]> {
  const words = spokenWords(text);
  const t = performance.now();
  const spans = await aligner.align(
    pcm16k,
    words.map((w) => w.word),
  );
  alignMs += performance.now() - t;
  alignedSeconds += pcm16k.length / 16000;
  return fillGaps(words, spans, pcm16k.length / 16000);
}

const phoneCount = new Map<string, number>();
function phonesOf(word: string): number {
  let n = phoneCount.get(word);
  if (n === undefined) {
    n = execFileSync('flite', ['-ps', '-t', word, '-o', 'none'])
      .toString()
      .trim()
      .split(/\s+/)
      .filter((p) => p && p !== 'pau').length;
    phoneCount.set(word, n);
  }
  return n;
}

/** Flite's own word spans: phone end times grouped by word; null when the grouping does not add up. */
function fliteTruth(voice: string, text: string, stretch: number, wav: string): Span[] | null {
  const out = execFileSync('flite', ['-voice', voice, '--setf', `duration_stretch=${stretch}`, '-t', text, '-o', wav, '-psdur']).toString();
  const segs = out
    .trim()
    .split(/\s+/)
    .map((x) => {
      const [p, t] = x.split(':');
      return { p: p!, end: Number(t) };
    });
  const spans: Span[] = [];
  let i = 0;
  let prevEnd = 0;
  for (const w of spokenWords(text)) {
    while (segs[i]?.p === 'pau') prevEnd = segs[i++]!.end;
    const n = phonesOf(w.word.toLowerCase());
    const last = segs[i + n - 1];
    if (!last || segs.slice(i, i + n).some((s) => s.p === 'pau')) return null;
    spans.push({ start: prevEnd, end: last.end });
    prevEnd = last.end;
    i += n;
  }
  return segs.slice(i).every((s) => s.p === 'pau') ? spans : null;
}

function errors(truth: Span[], got: Span[], startsOnly = false): number[] {
  if (truth.length !== got.length) throw new Error(`word counts differ: ${truth.length} vs ${got.length}`);
  return truth.flatMap((t, k) =>
    startsOnly ? [Math.abs(t.start - got[k]!.start)] : [Math.abs(t.start - got[k]!.start), Math.abs(t.end - got[k]!.end)],
  );
}

function row(label: string, diffs: number[], sentences: string): string {
  const s = [...diffs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const ms = (x: number) => `${Math.round(x * 1000)}`;
  const p90 = s[Math.floor(s.length * 0.9)]!;
  const within = (100 * s.filter((d) => d <= 0.05).length) / s.length;
  return `| ${label} | ${sentences} | ${s.length} | ${ms(mean)} | ${ms(median(s))} | ${ms(p90)} | ${ms(s.at(-1)!)} | ${within.toFixed(0)}% |`;
}

const NUMBER_SENTENCES = [
  'We fixed 1,250 bugs. Thank you all very much.',
  'Version 2.5 ships on 12/03/2024 for $3.50 a month.',
  'Dr. Smith arrives at 9:00 with 17 boxes.',
  'Sales grew 12% in 1995 and 3,000,000 people came.',
  'Mr. Jones paid $1,499 on March 3rd, e.g. by card.',
  'The 2nd meeting is at 14:05, room 101, floor 3.',
  'It weighs 0.75 kg and costs $12.99 since 2019.',
  'On 01/15/2025 we shipped 42 orders to 7 countries.',
];

/** Flite's own spans of `tokens` (phone counts of each token said alone) in `text`; null when they do not add up. */
function fliteTokenTruth(text: string, tokens: string[], wavOut: string): Span[] | null {
  const out = execFileSync('flite', ['-voice', 'slt', '-t', text, '-o', wavOut, '-psdur']).toString();
  const segs = out
    .trim()
    .split(/\s+/)
    .map((x) => ({ p: x.split(':')[0]!, end: Number(x.split(':')[1]) }));
  const spans: Span[] = [];
  let i = 0;
  let prevEnd = 0;
  for (const w of tokens) {
    while (segs[i]?.p === 'pau') prevEnd = segs[i++]!.end;
    const n = phonesOf(w.toLowerCase());
    const last = segs[i + n - 1];
    if (!last || segs.slice(i, i + n).some((s) => s.p === 'pau')) return null;
    spans.push({ start: prevEnd, end: last.end });
    prevEnd = last.end;
    i += n;
  }
  return segs.slice(i).every((s) => s.p === 'pau') ? spans : null;
}

async function numbersRows(): Promise<string[]> {
  const before: number[] = [];
  const beforeStarts: number[] = [];
  const after: number[] = [];
  let usedBefore = 0;
  for (const text of NUMBER_SENTENCES) {
    // Before: the text as written to Flite, its tokens to the aligner.
    const tokens = text
      .split(/\s+/)
      .map((t) => t.replace(/^[^\p{L}\p{N}$]+|[^\p{L}\p{N}%]+$/gu, ''))
      .filter(Boolean);
    const truth = fliteTokenTruth(text, tokens, wav);
    if (truth) {
      const audio = decodePcm16MonoWav(readFileSync(wav))!;
      const aligned = await align(audio.samples, text);
      const words = spokenWords(text).map((w) => w.word);
      // The plain words, matched in order between the written tokens and the aligner's words.
      let k = 0;
      tokens.forEach((tok, ti) => {
        if (!/^\p{L}+$/u.test(tok)) return;
        while (k < words.length && words[k] !== tok) k++;
        if (k >= words.length) return;
        before.push(Math.abs(truth[ti]!.start - aligned[k]!.start), Math.abs(truth[ti]!.end - aligned[k]!.end));
        beforeStarts.push(Math.abs(truth[ti]!.start - aligned[k]!.start));
        k++;
      });
      usedBefore++;
    }
    // After: the spoken form to Flite and to the aligner, joined back into the written words.
    const plan = await spokenPlan('en-US', text, true);
    const t2 = fliteTokenTruth(
      plan.engineText,
      plan.words.map((w) => w.word),
      wav,
    );
    if (!t2) throw new Error(`Flite's phones do not group into "${plan.engineText}"`);
    const audio = decodePcm16MonoWav(readFileSync(wav))!;
    const t0 = performance.now();
    const spans = await aligner.align(
      audio.samples,
      plan.words.map((w) => w.word),
    );
    alignMs += performance.now() - t0;
    alignedSeconds += audio.samples.length / 16000;
    const got = asWritten(text, plan.words, spans);
    const ref = asWritten(text, plan.words, t2);
    const timed = fillGaps(got.words, got.spans, audio.samples.length / 16000);
    after.push(...errors(ref.spans as Span[], timed));
  }
  return [
    row('Numbers set, before: plain words, text as written to Flite and the aligner', before, `${usedBefore}/${NUMBER_SENTENCES.length}`),
    row('Numbers set, before: plain words, starts only', beforeStarts, `${usedBefore}/${NUMBER_SENTENCES.length}`),
    row(
      'Numbers set, after: every written word, spoken form to Flite and the aligner',
      after,
      `${NUMBER_SENTENCES.length}/${NUMBER_SENTENCES.length}`,
    ),
  ];
}

const wav = path.join(tmpdir(), `parla-bench-wt-${process.pid}.wav`);
const rows: string[] = [];
try {
  if (process.argv.includes('--numbers')) {
    rows.push(...(await numbersRows()));
  } else {
    for (const [voice, stretch] of [
      ['slt', 1],
      ['kal16', 1],
      ['slt', 0.5],
    ] as const) {
      const diffs: number[] = [];
      let used = 0;
      for (const text of SENTENCES) {
        const truth = fliteTruth(voice, text, stretch, wav);
        if (!truth) continue;
        const audio = decodePcm16MonoWav(readFileSync(wav))!;
        diffs.push(...errors(truth, await align(audio.samples, text)));
        used++;
      }
      rows.push(
        row(
          `Flite ${voice}${stretch === 1 ? '' : ` at speed ${1 / stretch}`}: alignment vs Flite's segment times`,
          diffs,
          `${used}/${SENTENCES.length}`,
        ),
      );
    }

    const pool = createWorkerPool({ threads: 1, maxQueue: 16 });
    try {
      const espeak = new EspeakEngine(pool);
      for (const speed of [1, 2]) {
        const diffs: number[] = [];
        const starts: number[] = [];
        for (const text of SENTENCES) {
          const res = await espeak.synthesize({
            text,
            engineVoice: '',
            language: 'en-US',
            speed,
            pitch: 0,
            style: 'normal',
            wordTimings: true,
          });
          const duration = res.samples.length / res.sampleRate;
          const words = spokenWords(text);
          const events = fillGaps(words, spansFromEvents(words, res.words ?? []), duration);
          const aligned = await align(resampleInt16(res.samples, res.sampleRate, 16000), text);
          diffs.push(...errors(events, aligned));
          starts.push(...errors(events, aligned, true));
        }
        const label = `eSpeak NG en-us${speed === 1 ? '' : ` at speed ${speed}`}: alignment vs eSpeak's word events`;
        rows.push(row(label, diffs, `${SENTENCES.length}/${SENTENCES.length}`));
        rows.push(row(`${label}, word starts only`, starts, `${SENTENCES.length}/${SENTENCES.length}`));
      }
    } finally {
      await pool.close();
    }
  }
} finally {
  rmSync(wav, { force: true });
}

console.log(
  '| Reference | Sentences | Boundaries (start and end of each word) | Mean abs. error (ms) | Median | p90 | Max | Within 50 ms |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(
  `\nAlignment cost: ${(alignMs / alignedSeconds).toFixed(1)} ms per second of audio (${alignedSeconds.toFixed(0)} s aligned, one decoder, first call included).`,
);
