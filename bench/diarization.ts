// Diarization accuracy on constructed dialogues (docs/stt.md): two synthetic voices take turns,
// the turns' exact spans (and spans trimmed by 0.3 s at both ends, as recognizer utterances often
// are) go to the clustering; a turn is right when its label matches the best mapping of labels to
// voices. One-voice recordings must come out as one speaker.
// Run: node --import tsx bench/diarization.ts
import { readFileSync } from 'node:fs';
import { decodeWav } from '../src/audio/wav.js';
import { diarizeSegments as clusterTurns } from '../src/stt/diarize.js';
import { espeak, flite, librivox, soxConcat } from '../test/helpers/speech.js';
import { table } from './lib.js';

type Voice = { name: string; say: (text: string) => string };
const fliteVoice = (v: string): Voice => ({ name: `flite ${v}`, say: (t) => flite(t, v) });
const espeakVoice = (v: string): Voice => ({ name: `espeak-ng ${v}`, say: (t) => espeak(t, v) });

const LINES = [
  'Good morning, how was your weekend?',
  'It was great, we went hiking in the mountains.',
  'That sounds wonderful. Did you take any pictures?',
  'Yes, plenty of them, I will show you later today.',
  'Do you want to go again next month?',
  'Sure, as long as the weather stays this nice.',
  'Then let us plan it over lunch on Friday.',
  'Perfect, I will bring the maps and the snacks.',
];

let diarizeMs = 0;
let audioSeconds = 0;
/** The clustering, timed (synthesis is not). */
function diarizeSegments(pcm: Int16Array, spans: Array<{ start: number; end: number }>): number[] {
  const t = performance.now();
  const labels = clusterTurns(pcm, spans);
  diarizeMs += performance.now() - t;
  audioSeconds += pcm.length / 16000;
  return labels;
}

function pcmOf(file: string): Int16Array {
  const { channels } = decodeWav(readFileSync(file));
  const ch = channels[0]!;
  const out = new Int16Array(ch.length);
  for (let i = 0; i < ch.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(ch[i]! * 32767)));
  return out;
}

/** Speakers in turn order and their spans in the concatenated file. */
function dialogue(voices: Voice[], turns: number, gap = 0.7) {
  const files: string[] = [];
  const who: number[] = [];
  for (let k = 0; k < turns; k++) {
    const v = k % voices.length;
    files.push(voices[v]!.say(LINES[k % LINES.length]!));
    who.push(v);
  }
  const spans: Array<{ start: number; end: number }> = [];
  let t = 0;
  for (const f of files) {
    const len = pcmOf(f).length / 16000;
    spans.push({ start: t, end: t + len });
    t += len + gap;
  }
  return { pcm: pcmOf(soxConcat(files, gap)), spans, who };
}

/** Turns labeled right under the best one-to-one mapping of labels to speakers. */
function correctTurns(labels: number[], who: number[]): number {
  const labelSet = [...new Set(labels)];
  const speakers = [...new Set(who)];
  let best = 0;
  const permute = (used: Set<number>, map: Map<number, number>, i: number) => {
    if (i === labelSet.length) {
      best = Math.max(best, labels.filter((l, k) => map.get(l) === who[k]).length);
      return;
    }
    let any = false;
    for (const s of speakers) {
      if (used.has(s)) continue;
      any = true;
      used.add(s);
      map.set(labelSet[i]!, s);
      permute(used, map, i + 1);
      used.delete(s);
      map.delete(labelSet[i]!);
    }
    if (!any) permute(used, map, i + 1);
  };
  permute(new Set(), new Map(), 0);
  return best;
}

const PAIRS: Array<[Voice, Voice]> = [
  [fliteVoice('slt'), fliteVoice('rms')],
  [fliteVoice('slt'), fliteVoice('awb')],
  [fliteVoice('rms'), fliteVoice('awb')],
  [fliteVoice('kal16'), fliteVoice('slt')],
  [espeakVoice('en-us'), fliteVoice('slt')],
  [espeakVoice('en-us+f3'), fliteVoice('rms')],
  [espeakVoice('en-gb'), fliteVoice('awb')],
  [espeakVoice('en-us'), espeakVoice('en-us+f3')],
];

const rows: Array<Record<string, string>> = [];
let right = 0;
let total = 0;
for (const [a, b] of PAIRS) {
  for (const turns of [4, 8]) {
    const d = dialogue([a, b], turns);
    for (const [how, spans] of [
      ['exact', d.spans],
      ['trimmed', d.spans.map((s) => ({ start: s.start + 0.3, end: s.end - 0.3 }))],
    ] as const) {
      const labels = diarizeSegments(d.pcm, [...spans]);
      const ok = correctTurns(labels, d.who);
      right += ok;
      total += turns;
      rows.push({
        voices: `${a.name} / ${b.name}`,
        turns: String(turns),
        spans: how,
        'turns right': `${ok}/${turns}`,
        'speakers found': String(new Set(labels).size),
      });
    }
  }
}
const single: Array<Record<string, string>> = [];
let singleOk = 0;
const VOICES = [
  fliteVoice('slt'),
  fliteVoice('rms'),
  fliteVoice('awb'),
  fliteVoice('kal16'),
  espeakVoice('en-us'),
  espeakVoice('en-us+f3'),
  espeakVoice('en-gb'),
];
for (const v of VOICES) {
  const d = dialogue([v], 6);
  const n = new Set(diarizeSegments(d.pcm, d.spans)).size;
  if (n === 1) singleOk++;
  single.push({ 'one voice': v.name, turns: '6', 'speakers found': String(n) });
}
// Real recorded speech: the five LibriVox files (one reader, one chapter) in a row, cut into 2.5 s pieces.
{
  const pcm = pcmOf(
    soxConcat(
      librivox().map((f) => f.file),
      0.5,
    ),
  );
  const spans: Array<{ start: number; end: number }> = [];
  for (let t = 0; t + 2.5 <= pcm.length / 16000; t += 2.5) spans.push({ start: t, end: t + 2.5 });
  const n = new Set(diarizeSegments(pcm, spans)).size;
  if (n === 1) singleOk++;
  single.push({ 'one voice': 'LibriVox reader (pocketsphinx-testdata)', turns: String(spans.length), 'speakers found': String(n) });
}
const voicesTried = VOICES.length + 1;
console.log(table(rows));
console.log(`\ntwo-voice dialogues: ${right}/${total} turns right (${((100 * right) / total).toFixed(1)}%)\n`);
console.log(table(single));
console.log(`\none-voice recordings kept as one speaker: ${singleOk}/${voicesTried}`);
console.log(
  `diarization time: ${(diarizeMs / 1000).toFixed(1)} s for ${audioSeconds.toFixed(0)} s of audio (${(diarizeMs / 1000 / audioSeconds).toFixed(3)}x real time, one thread)`,
);
