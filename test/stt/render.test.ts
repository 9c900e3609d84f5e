// Transcript assembly and the five response formats, without the engine: segments from
// utterances, long ones cut at the longest pause, subtitle cues and timestamps, result fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecognizedUtterance, WordTiming } from '../../src/engines/engine.js';
import { buildTranscript, applySpeakers, diarizationSpans } from '../../src/stt/transcript.js';
import { render, RESPONSE_CONTENT_TYPES, subtitleCues, timestamp, cueLines, type RenderContext } from '../../src/stt/response-formats.js';

/** An utterance of `text` from `start`: words 0.4 s apart (0.3 s long); "|" adds a 0.6 s pause. */
function utterance(text: string, start: number): RecognizedUtterance {
  const words: WordTiming[] = [];
  let t = start;
  for (const w of text.split(' ')) {
    if (w === '|') {
      t += 0.6;
      continue;
    }
    words.push({ word: w, start: +t.toFixed(3), end: +(t + 0.3).toFixed(3), confidence: 0.8 });
    t += 0.4;
  }
  return { start, end: words[words.length - 1]!.end, words };
}

const ctx = (over: Partial<RenderContext> = {}): RenderContext => ({
  language: 'en',
  duration: 30,
  model: 'cipher-fast',
  provider: 'cipher',
  engine: 'pocketsphinx',
  creditsUsed: 60,
  includeWords: false,
  includeSegments: true,
  diarized: false,
  ...over,
});

test('timestamps: HH:MM:SS,mmm for srt and HH:MM:SS.mmm for vtt, rounded to the millisecond', () => {
  assert.equal(timestamp(3725.5, ','), '01:02:05,500');
  assert.equal(timestamp(0, '.'), '00:00:00.000');
  assert.equal(timestamp(59.9996, ','), '00:01:00,000');
  assert.equal(timestamp(12.3456, '.'), '00:00:12.346');
  assert.equal(timestamp(36000.001, ','), '10:00:00,001');
});

test("segments follow the utterances; ids count from 0; times are the words' times", () => {
  const t = buildTranscript([utterance('good morning everyone', 0.5), utterance('let us begin', 4)], {
    smartFormat: true,
    punctuate: true,
  });
  assert.deepEqual(
    t.segments.map((s) => [s.id, s.start, s.end, s.text]),
    [
      [0, 0.5, 1.6, 'Good morning everyone.'],
      [1, 4, 4.3 + 0.8, 'Let us begin.'],
    ],
  );
  assert.equal(t.text, 'Good morning everyone. Let us begin.');
  assert.equal(t.segments[0]!.avgConfidence, 0.8);
});

test('a long utterance is cut into segments of at most 8 s at its longest pause', () => {
  const long = utterance(
    'one two three four five six seven eight nine ten eleven twelve | thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty one twenty two twenty three twenty four twenty five twenty six',
    0,
  );
  const t = buildTranscript([long], { smartFormat: false, punctuate: false });
  assert.ok(t.segments.length >= 2);
  for (const s of t.segments) assert.ok(s.end - s.start <= 8, `${s.start}-${s.end}`);
  assert.equal(t.segments[0]!.words.at(-1)!.word, 'twelve', 'cut at the pause');
  assert.equal(t.segments.flatMap((s) => s.words).length, long.words.length, 'no word lost');
});

test('smart format inside a transcript keeps word timings: the merged word spans its words', () => {
  const t = buildTranscript([utterance('it costs twenty five dollars', 1)], { smartFormat: true, punctuate: true });
  const amount = t.words.find((w) => w.word === '$25')!;
  assert.deepEqual([amount.start, amount.end, amount.punctuated], [1.8, 2.9, '$25.']);
});

test('subtitle cues: at most two lines of about 42 characters and 7 s each, timed by their words', () => {
  const text =
    'this is a rather long sentence that goes on and on about nothing in particular while the speaker keeps talking without a break for quite some time';
  const t = buildTranscript([utterance(text, 2)], { smartFormat: false, punctuate: true });
  const cues = subtitleCues(t.segments);
  assert.ok(cues.length >= 3);
  for (const c of cues) {
    assert.ok(c.lines.length <= 2);
    for (const l of c.lines) assert.ok(l.length <= 46, l);
    assert.ok(c.end - c.start <= 7);
  }
  assert.equal(cues[0]!.start, 2);
  assert.equal(cues.map((c) => c.lines.join(' ')).join(' '), t.text);
  assert.deepEqual(cueLines('short line'), ['short line']);
});

test('srt: numbered cues with comma timestamps; vtt: WEBVTT header with dot timestamps', () => {
  const t = buildTranscript([utterance('hello there', 0.25), utterance('general kenobi', 3725)], { smartFormat: false, punctuate: true });
  assert.equal(
    render('srt', t, ctx()),
    '1\n00:00:00,250 --> 00:00:00,950\nHello there.\n\n2\n01:02:05,000 --> 01:02:05,700\nGeneral kenobi.\n',
  );
  assert.equal(
    render('vtt', t, ctx()),
    'WEBVTT\n\n00:00:00.250 --> 00:00:00.950\nHello there.\n\n01:02:05.000 --> 01:02:05.700\nGeneral kenobi.\n',
  );
  assert.equal(render('text', t, ctx()), 'Hello there. General kenobi.\n');
});

test('json: the transcription result fields; words only when asked or diarized', () => {
  const t = buildTranscript([utterance('hello there', 0)], { smartFormat: false, punctuate: true });
  const json = render('json', t, ctx()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(json), ['text', 'language', 'duration', 'model', 'provider', 'engine', 'credits_used']);
  assert.deepEqual(json, {
    text: 'Hello there.',
    language: 'en',
    duration: 30,
    model: 'cipher-fast',
    provider: 'cipher',
    engine: 'pocketsphinx',
    credits_used: 60,
  });
  const spans = diarizationSpans(t);
  applySpeakers(
    t,
    spans,
    spans.map(() => 0),
  );
  const diarized = render('json', t, ctx({ includeWords: true, diarized: true })) as { words: unknown[] };
  assert.deepEqual(diarized.words[0], { word: 'hello', punctuated_word: 'Hello', start: 0, end: 0.3, confidence: 0.8, speaker: 0 });
});

test('verbose_json per decisions #17: task, language, duration, text, segments, words with word granularity', () => {
  const t = buildTranscript([utterance('hello there', 0), utterance('how are you', 2)], { smartFormat: false, punctuate: true });
  const v = render('verbose_json', t, ctx({ includeWords: true })) as any;
  for (const f of ['task', 'language', 'duration', 'text', 'segments', 'words']) assert.ok(f in v, f);
  assert.equal(v.task, 'transcribe');
  assert.deepEqual(v.segments[1], { id: 1, start: 2, end: 3.1, text: 'How are you?', avg_confidence: 0.8 });
  assert.equal(v.words.length, 5);
  assert.equal((render('verbose_json', t, ctx()) as any).words, undefined);
});

test('diarized subtitles carry the speaker', () => {
  const t = buildTranscript([utterance('hello there', 0), utterance('hi', 2)], { smartFormat: false, punctuate: true });
  const spans = diarizationSpans(t);
  applySpeakers(t, spans, [0, 1]);
  assert.match(render('srt', t, ctx({ diarized: true })) as string, /\[Speaker 0\] Hello there\.[\s\S]*\[Speaker 1\] Hi\./);
  assert.match(render('vtt', t, ctx({ diarized: true })) as string, /<v Speaker 1>Hi\./);
});

test('content types of docs/interface.md', () => {
  assert.deepEqual(RESPONSE_CONTENT_TYPES, {
    json: 'application/json',
    text: 'text/plain; charset=utf-8',
    verbose_json: 'application/json',
    srt: 'text/plain; charset=utf-8',
    vtt: 'text/vtt; charset=utf-8',
  });
});

test('diarization spans are cut at pauses of 0.25 s (a short stretch joins its neighbour); segments are cut where the speaker changes', () => {
  // One recognizer utterance holding two turns 0.7 s apart (words 0.1 s apart inside each).
  const t = buildTranscript([utterance('good morning to you | fine thanks and you', 0)], { smartFormat: false, punctuate: false });
  assert.equal(t.segments.length, 1);
  const spans = diarizationSpans(t);
  assert.deepEqual(
    spans.map((s) => [s.start, s.end, s.words.length]),
    [
      [0, 1.5, 4],
      [2.2, 3.7, 4],
    ],
  );
  applySpeakers(t, spans, [0, 1]);
  assert.deepEqual(
    t.segments.map((s) => [s.id, s.start, s.end, s.text, s.speaker]),
    [
      [0, 0, 1.5, 'good morning to you', 0],
      [1, 2.2, 3.7, 'fine thanks and you', 1],
    ],
  );
  // The same speaker on both sides of the pause: one segment, as recognized.
  const same = buildTranscript([utterance('good morning to you | fine thanks and you', 0)], { smartFormat: false, punctuate: false });
  const sameSpans = diarizationSpans(same);
  applySpeakers(same, sameSpans, [0, 0]);
  assert.deepEqual(
    same.segments.map((s) => [s.start, s.end, s.speaker]),
    [[0, 3.7, 0]],
  );
  // A stretch under 1 s after a pause says too little alone: it joins the stretch before it.
  const short = buildTranscript([utterance('good morning to you | fine', 0)], { smartFormat: false, punctuate: false });
  assert.deepEqual(
    diarizationSpans(short).map((s) => s.words.length),
    [5],
  );
});
