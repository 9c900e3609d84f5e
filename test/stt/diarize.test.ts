// Speaker clustering on real synthesized voices with known turn spans (no recognizer): two
// voices are told apart, one voice stays one speaker, labels count up by first appearance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeWav } from '../../src/audio/wav.js';
import { clusterSpeakers, diarizeKnown, diarizeSegments } from '../../src/stt/diarize.js';
import { espeak, flite, librivox, soxConcat } from '../helpers/speech.js';

const LINES = [
  'Good morning, how was your weekend?',
  'It was great, we went hiking in the mountains.',
  'That sounds wonderful. Did you take any pictures?',
  'Yes, plenty of them, I will show you later today.',
];

function pcmOf(file: string): Int16Array {
  const ch = decodeWav(readFileSync(file)).channels[0]!;
  return Int16Array.from(ch, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32767))));
}

/** Turns said by the given speakers in order, 0.7 s apart: the recording and each turn's span. */
function dialogue(turns: Array<(text: string) => string>, trim = 0) {
  const files = turns.map((say, k) => say(LINES[k % LINES.length]!));
  const spans: Array<{ start: number; end: number }> = [];
  let t = 0;
  for (const f of files) {
    const len = pcmOf(f).length / 16000;
    spans.push({ start: t + trim, end: t + len - trim });
    t += len + 0.7;
  }
  return { pcm: pcmOf(soxConcat(files, 0.7)), spans };
}

const slt = (t: string) => flite(t, 'slt');
const rms = (t: string) => flite(t, 'rms');
const awb = (t: string) => flite(t, 'awb');
const kal = (t: string) => flite(t, 'kal16');
const espeakUs = (t: string) => espeak(t, 'en-us');

test('a woman and a man taking turns: two speakers, numbered by first appearance', () => {
  const d = dialogue([slt, rms, slt, rms]);
  assert.deepEqual(diarizeSegments(d.pcm, d.spans), [0, 1, 0, 1]);
  const m = dialogue([rms, slt, slt, rms], 0.3);
  assert.deepEqual(diarizeSegments(m.pcm, m.spans), [0, 1, 1, 0]);
});

test('two male voices (Flite rms and awb) and eSpeak NG against Flite are told apart', () => {
  const males = dialogue([rms, awb, rms, awb]);
  assert.deepEqual(diarizeSegments(males.pcm, males.spans), [0, 1, 0, 1]);
  const engines = dialogue([espeakUs, slt, espeakUs, slt]);
  assert.deepEqual(diarizeSegments(engines.pcm, engines.spans), [0, 1, 0, 1]);
});

test('one voice alone stays one speaker (synthetic and a recorded human reader)', () => {
  for (const voice of [kal, slt, espeakUs]) {
    const d = dialogue([voice, voice, voice, voice]);
    assert.deepEqual(diarizeSegments(d.pcm, d.spans), [0, 0, 0, 0]);
  }
  const reader = pcmOf(
    soxConcat(
      librivox().map((f) => f.file),
      0.5,
    ),
  );
  const pieces = Array.from({ length: Math.floor(reader.length / 16000 / 2.5) }, (_, k) => ({ start: k * 2.5, end: k * 2.5 + 2.5 }));
  assert.equal(new Set(diarizeSegments(reader, pieces)).size, 1);
});

test('clustering: segments too short to describe join their neighbour; labels by first appearance', () => {
  const far = [10, 10, 10];
  const near = [0, 0, 0];
  assert.deepEqual(clusterSpeakers([far, null, near, far, null]), [0, 0, 1, 0, 0]);
  assert.deepEqual(clusterSpeakers([null, null]), [0, 0]);
  assert.deepEqual(clusterSpeakers([]), []);
});

// Known speakers (decision #50): samples of other sentences in the same voices name the clusters.
const REFERENCE = 'The weather report says it will rain tomorrow afternoon, so bring an umbrella.';

test('known speakers: references from other sentences name the matching voices, in either order', () => {
  const d = dialogue([slt, rms, slt, rms]);
  const refs = (voices: Array<(t: string) => string>) => voices.map((v) => pcmOf(v(REFERENCE)));
  const named = diarizeKnown(d.pcm, d.spans, refs([rms, slt]));
  assert.deepEqual(named, { labels: [0, 1, 0, 1], known: [1, 0] });
  // One of the two known: the other speaker keeps no name.
  assert.deepEqual(diarizeKnown(d.pcm, d.spans, refs([slt])), { labels: [0, 1, 0, 1], known: [0, -1] });
});

test('known speakers: references of voices not in the recording name nobody and change no label', () => {
  const d = dialogue([slt, rms, slt, rms]);
  const absent = [awb, espeakUs].map((v) => pcmOf(v(REFERENCE)));
  assert.deepEqual(diarizeKnown(d.pcm, d.spans, absent), { labels: [0, 1, 0, 1], known: [-1, -1] });
});
