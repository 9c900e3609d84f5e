// Diarization error rate (bench/der.ts: missed speech, false alarm, confusion; collar 0.25 s) on
// conversations built from Parla's own voices and from the human recordings of the test fixtures.
// Voices: the service's tts-1 (aura-prime) voices on four distinct engine voices: alloy (Aria,
// Flite slt), onyx (Theo, awb), ash (Orion, rms), ballad (Leo, kal16); and a hard pair on one
// engine voice (alloy and nova: slt at 0 and +2 semitones). Conversations of 2, 3 and 4 speakers,
// turns of 1-10 s, pauses of 0.2-1.2 s and about one turn in five starting 0.3-0.8 s before the
// last one ends (overlap). Human: the LibriVox reader, the "cards" speaker and the "go forward"
// speaker of Debian's PocketSphinx test data (three corpora), joined the same way.
// Per conversation, one recognition by the service (the recognizer's words and segments), then the
// diarization steps as the service runs them, with the spans of before and after the change of
// 2026-11-28 side by side (src/stt/transcript.ts: cut at pauses of 0.25 s, segments cut where the
// speaker changes), and the clustering alone on the reference's own turns ("oracle spans").
// DER_SPEAKER_MODELS=<models folder> adds the neural path (decision #91) on the same spans: the
// speaker models installed and verified there (`parla models pull`, docs/engines.md "Speaker
// diarization"), the first embedding and segmentation model by name, as a node serves them.
// Run: node --import tsx bench/diarization-der.ts
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestAccount, createTestApp } from '../test/helpers/app.js';
import { multipart } from '../test/helpers/multipart.js';
import { librivox } from '../test/helpers/speech.js';
import { decodeWav, encodeWav } from '../src/audio/wav.js';
import { diarizeSegments } from '../src/stt/diarize.js';
import { applySpeakers, diarizationSpans, type Transcript, type TranscriptSegment, type TranscriptWord } from '../src/stt/transcript.js';
import { der, pooled, type DerResult, type Turn } from './der.js';
import { table } from './lib.js';
import { SpeakerModels } from '../src/engines/sherpa/speaker-host.js';
import { verifiedModels } from '../src/models/store.js';

const RATE = 16000;
const dir = mkdtempSync(path.join(tmpdir(), 'parla-der-'));
let n = 0;

const LINES = [
  'Yes, that is exactly right.',
  'Good morning, how was your weekend?',
  'It was great, we went hiking in the mountains with my sister and her two kids.',
  'Really? I did not know that.',
  'That sounds wonderful. Did you take any pictures of the lake?',
  'Plenty of them, I will show you later today when we have a break between the meetings this afternoon.',
  'Sure, no problem at all.',
  'Do you want to go again next month, maybe on the long weekend at the end of the month?',
  'As long as the weather stays this nice, I am in.',
  'Then let us plan it over lunch on Friday.',
  'Perfect, see you then.',
  'I will bring the maps, the snacks and the old camera, and you can bring the tent and the stove we used last year.',
];

const t = await createTestApp();
const { apiKey } = await createTestAccount(t.services, { plan: 'pro', credits: 100_000_000 });

function pcm16k(file: string): Int16Array {
  const out = path.join(dir, `p${n++}.wav`);
  execFileSync('sox', [file, '-r', String(RATE), '-c', '1', '-b', '16', out]);
  const ch = decodeWav(readFileSync(out)).channels[0]!;
  return Int16Array.from(ch, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32767))));
}

async function say(voice: string, text: string): Promise<Int16Array> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/audio/speech',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { model: 'tts-1', voice, input: text, response_format: 'wav' },
  });
  if (res.statusCode !== 200) throw new Error(`speech ${voice}: ${res.statusCode} ${res.body}`);
  const file = path.join(dir, `s${n++}.wav`);
  writeFileSync(file, res.rawPayload);
  return pcm16k(file);
}

/** The clip without its leading and trailing silence (below -40 dBFS in 10 ms frames). */
function trimmed(pcm: Int16Array): Int16Array {
  const loud = (f: number) => {
    let peak = 0;
    for (let i = f * 160; i < Math.min(pcm.length, f * 160 + 160); i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    return peak > 328;
  };
  const frames = Math.floor(pcm.length / 160);
  let a = 0;
  while (a < frames && !loud(a)) a++;
  let b = frames - 1;
  while (b > a && !loud(b)) b--;
  return pcm.subarray(a * 160, (b + 1) * 160);
}

/** A repeatable pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Clips of each speaker placed in turns: the mixed recording and the reference turns. */
function conversation(clips: Array<{ speaker: string; pcm: Int16Array }>, seed: number): { pcm: Int16Array; turns: Turn[] } {
  const rnd = random(seed);
  const turns: Turn[] = [];
  let at = 0.5;
  for (const [k, c] of clips.entries()) {
    if (k > 0) {
      const overlap = rnd() < 0.2;
      at += overlap ? -(0.3 + rnd() * 0.5) : 0.2 + rnd() * 1.0;
      at = Math.max(at, turns[k - 1]!.start + 0.5);
    }
    turns.push({ start: at, end: at + c.pcm.length / RATE, speaker: c.speaker });
    at += c.pcm.length / RATE;
  }
  const total = Math.ceil((Math.max(...turns.map((x) => x.end)) + 0.5) * RATE);
  const mix = new Float64Array(total);
  clips.forEach((c, k) => {
    const o = Math.round(turns[k]!.start * RATE);
    for (let i = 0; i < c.pcm.length; i++) mix[o + i]! += c.pcm[i]!;
  });
  return { pcm: Int16Array.from(mix, (v) => Math.max(-32768, Math.min(32767, Math.round(v)))), turns };
}

/** Speakers take turns in a random order (never twice in a row), each turn the next of its lines. */
async function synthetic(voices: string[], turnCount: number, seed: number) {
  const rnd = random(seed * 7919);
  const clips: Array<{ speaker: string; pcm: Int16Array }> = [];
  let prev = -1;
  for (let k = 0; k < turnCount; k++) {
    let v = Math.floor(rnd() * voices.length);
    if (v === prev) v = (v + 1) % voices.length;
    prev = v;
    const line = LINES[(k * 5 + seed * 3) % LINES.length]!;
    clips.push({ speaker: voices[v]!, pcm: trimmed(await say(voices[v]!, line)) });
  }
  return conversation(clips, seed);
}

/** The human recordings: each file one turn, speakers alternating as their material allows. */
function human(speakers: Array<{ name: string; files: string[] }>, seed: number) {
  const queues = speakers.map((s) => s.files.map((f) => trimmed(f.endsWith('.raw') ? rawPcm(f) : pcm16k(f))));
  const clips: Array<{ speaker: string; pcm: Int16Array }> = [];
  while (queues.some((q) => q.length)) {
    for (const [i, q] of queues.entries()) {
      const c = q.shift();
      if (c) clips.push({ speaker: speakers[i]!.name, pcm: c });
    }
  }
  return conversation(clips, seed);
}

function rawPcm(file: string): Int16Array {
  const b = readFileSync(file);
  return new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.length & ~1)));
}

/**
 * The service's recognition (POST /v1/audio/transcriptions, whisper-1 = cipher-max, verbose_json
 * with words and segments), read back into a transcript: the diarization steps then run on it here,
 * as the service runs them, so the spans before and after a change are compared on one recognition.
 */
async function recognized(pcm: Int16Array): Promise<Transcript> {
  const { body, contentType } = await multipart(encodeWav(pcm, RATE), {
    model: 'whisper-1',
    response_format: 'verbose_json',
    'timestamp_granularities[]': ['word', 'segment'],
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
    payload: body,
  });
  if (res.statusCode !== 200) throw new Error(`transcriptions: ${res.statusCode} ${res.body}`);
  const v = JSON.parse(res.body) as {
    words: Array<{ word: string; start: number; end: number }>;
    segments: Array<{ start: number; end: number }>;
  };
  const words: TranscriptWord[] = v.words.map((w) => ({ word: w.word, punctuated: w.word, start: w.start, end: w.end }));
  const segments: TranscriptSegment[] = v.segments.map((s, id) => {
    const ws = words.filter((w) => w.start >= s.start - 0.001 && w.end <= s.end + 0.001);
    return { id, start: s.start, end: s.end, text: '', words: ws, avgConfidence: 0 };
  });
  return { text: '', words, segments: segments.filter((s) => s.words.length) };
}

/** The spans and segment labels before this change: whole segments (cut at 6 s), a segment's majority speaker. */
function spansBefore(tr: Transcript) {
  const spans: Array<{ start: number; end: number; words: TranscriptWord[] }> = [];
  for (const seg of tr.segments) {
    const pieces: TranscriptWord[][] = [];
    let cur: TranscriptWord[] = [];
    for (const w of seg.words) {
      if (cur.length && w.end - cur[0]!.start > 6) {
        pieces.push(cur);
        cur = [];
      }
      cur.push(w);
    }
    if (cur.length) {
      const last = pieces[pieces.length - 1];
      if (last && cur[cur.length - 1]!.end - cur[0]!.start < 1.2) last.push(...cur);
      else pieces.push(cur);
    }
    for (const p of pieces) spans.push({ start: p[0]!.start, end: p[p.length - 1]!.end, words: p });
  }
  return spans;
}

function hypBefore(pcm: Int16Array, tr: Transcript): Turn[] {
  const spans = spansBefore(tr);
  const labels = diarizeSegments(pcm, spans);
  spans.forEach((s, i) => s.words.forEach((w) => (w.speaker = labels[i] ?? 0)));
  return tr.segments.map((seg) => {
    const counts = new Map<number, number>();
    for (const w of seg.words) counts.set(w.speaker ?? 0, (counts.get(w.speaker ?? 0) ?? 0) + 1);
    return { start: seg.start, end: seg.end, speaker: String([...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0) };
  });
}

function hypAfter(pcm: Int16Array, tr: Transcript): Turn[] {
  const spans = diarizationSpans(tr);
  applySpeakers(tr, spans, diarizeSegments(pcm, spans));
  return tr.segments.map((s) => ({ start: s.start, end: s.end, speaker: String(s.speaker ?? 0) }));
}

/** The clustering alone, on the reference turns as spans. */
function oracle(pcm: Int16Array, turns: Turn[]): Turn[] {
  const labels = diarizeSegments(pcm, turns);
  return turns.map((x, i) => ({ start: x.start, end: x.end, speaker: String(labels[i]) }));
}

const PB = '/usr/share/pocketsphinx/test/data';
const sets: Array<{ name: string; make: (seed: number) => Promise<{ pcm: Int16Array; turns: Turn[] }> }> = [
  { name: '2 voices (alloy, onyx)', make: (s) => synthetic(['alloy', 'onyx'], 10, s) },
  { name: '3 voices (+ ash)', make: (s) => synthetic(['alloy', 'onyx', 'ash'], 12, s) },
  { name: '4 voices (+ ballad)', make: (s) => synthetic(['alloy', 'onyx', 'ash', 'ballad'], 14, s) },
  { name: 'hard pair (alloy, nova: one engine voice)', make: (s) => synthetic(['alloy', 'nova'], 10, s) },
  {
    name: 'human: LibriVox reader + cards speaker',
    make: async (s) =>
      human(
        [
          { name: 'librivox', files: librivox().map((f) => f.file) },
          { name: 'cards', files: [1, 2, 3, 4, 5].map((k) => `${PB}/cards/00${k}.wav`) },
        ],
        s,
      ),
  },
  {
    name: 'human: + go-forward speaker (3)',
    make: async (s) =>
      human(
        [
          { name: 'librivox', files: librivox().map((f) => f.file) },
          { name: 'cards', files: [1, 2, 3, 4, 5].map((k) => `${PB}/cards/00${k}.wav`) },
          { name: 'goforward', files: [`${PB}/goforward.raw`, `${PB}/something.raw`, `${PB}/numbers.raw`] },
        ],
        s,
      ),
  },
];

const SEEDS = [1, 2];
const rows: Array<Record<string, string>> = [];
/** The speaker models of DER_SPEAKER_MODELS, loaded in this process, or null. */
function speakerModels(): SpeakerModels | null {
  const dir = process.env.DER_SPEAKER_MODELS;
  if (!dir) return null;
  const installed = verifiedModels(dir);
  const file = (format: string) => {
    const m = installed.find((x) => x.format === format);
    return m ? path.join(m.dir, m.files.model!) : null;
  };
  const embedding = file('speaker-embedding');
  if (!embedding) throw new Error(`DER_SPEAKER_MODELS=${dir}: no verified speaker embedding model there`);
  const threshold = Number(process.env.PARLA_SPEAKER_THRESHOLD ?? '0.5');
  console.log(`neural: ${embedding} + ${file('speaker-segmentation') ?? 'no segmentation'}, threshold ${threshold}`);
  return new SpeakerModels({ embedding, segmentation: file('speaker-segmentation'), threshold });
}
const neural = speakerModels();

function hypNeural(models: SpeakerModels, pcm: Int16Array, tr: Transcript): Turn[] {
  const spans = diarizationSpans(tr);
  const { labels } = models.diarize({ pcm, spans: spans.map((x) => ({ start: x.start, end: x.end })), references: [] });
  applySpeakers(tr, spans, labels);
  return tr.segments.map((x) => ({ start: x.start, end: x.end, speaker: String(x.speaker ?? 0) }));
}

type System = 'before' | 'after' | 'oracle' | 'neural';
const SYSTEMS: System[] = neural ? ['before', 'after', 'neural', 'oracle'] : ['before', 'after', 'oracle'];
const LABEL: Record<System, string> = {
  before: 'service spans, before',
  after: 'service spans, after',
  oracle: 'oracle spans',
  neural: 'service spans, speaker models',
};
const all: Record<System, DerResult[]> = { before: [], after: [], oracle: [], neural: [] };
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const row = (set: string, system: string, r: DerResult, speakers: string) => ({
  conversations: set,
  system,
  'speech s': r.total.toFixed(0),
  missed: pct(r.missed / r.total),
  'false alarm': pct(r.falseAlarm / r.total),
  confusion: pct(r.confusion / r.total),
  DER: pct(r.der),
  'speakers found': speakers,
});
// DER_SETS=text runs only the sets whose name holds it; DER_DEBUG=1 prints each turn and segment.
for (const set of sets.filter((x) => x.name.includes(process.env.DER_SETS ?? ''))) {
  const got: Record<System, DerResult[]> = { before: [], after: [], oracle: [], neural: [] };
  const found: Record<System, number[]> = { before: [], after: [], oracle: [], neural: [] };
  for (const seed of SEEDS) {
    const c = await set.make(seed);
    const tr = await recognized(c.pcm);
    const hypotheses = [
      ['before', hypBefore(c.pcm, structuredClone(tr))],
      ['after', hypAfter(c.pcm, structuredClone(tr))],
      ['oracle', oracle(c.pcm, c.turns)],
      ...(neural ? ([['neural', hypNeural(neural, c.pcm, structuredClone(tr))]] as const) : []),
    ] as const;
    if (process.env.DER_DEBUG)
      console.log(
        JSON.stringify({ reference: c.turns, before: hypotheses[0][1], after: hypotheses[1][1] }, (_k, v: unknown) =>
          typeof v === 'number' ? +v.toFixed(2) : v,
        ),
      );
    for (const [system, hyp] of hypotheses) {
      got[system].push(der(c.turns, hyp));
      found[system].push(new Set(hyp.map((h) => h.speaker)).size);
    }
  }
  for (const system of SYSTEMS) {
    all[system].push(...got[system]);
    rows.push(row(set.name, LABEL[system], pooled(got[system]), found[system].join(', ')));
  }
}
console.log(table(rows));
for (const system of SYSTEMS) console.log(`all conversations, ${LABEL[system]}: DER ${pct(pooled(all[system]).der)}`);
await t.close();
