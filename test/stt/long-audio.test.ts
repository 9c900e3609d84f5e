// Long recordings on the real recognizer (src/stt/long-audio/, docs/stt.md "Long recordings"): a
// recording of over two minutes, sentences by two Flite voices taking turns, is cut at pauses
// into pieces recognized on both decoders and joined. Words come back in order, at the time their
// sentence was said, with contiguous segments, consistent subtitles and one speaker label per
// voice across the pieces (cut where Silero VAD found pauses); progress rises piece by piece; a short file keeps the one-pass path; a
// request arriving meanwhile is not held up behind the recording; an abort frees the decoders and
// the credits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, soxConcat, wordErrorRate } from '../helpers/speech.js';
import type { AuthContext } from '../../src/accounts/auth-context.js';
import { parseSttFields } from '../../src/stt/request.js';
import { render } from '../../src/stt/response-formats.js';

const SENTENCES = [
  'The morning train to the city was late again today.',
  'She bought fresh bread and cheese at the market.',
  'Our neighbors painted their house a bright yellow color.',
  'The children played football in the park until dark.',
  'He forgot his umbrella and walked home in the rain.',
  'We watched the boats sail slowly across the harbor.',
  'The library closes early on Sunday afternoons.',
  'My brother is learning to play the piano this year.',
  'The soup needs more salt and a little pepper.',
  'They planted apple trees along the garden wall.',
  'The museum opened a new exhibition about ancient ships.',
  'Please remember to turn off the lights when you leave.',
  'A small dog was barking at the mailman all morning.',
  'The river was frozen for most of the winter.',
  'I will call you as soon as the meeting is over.',
  'The old clock in the hall stopped working last week.',
  'We drove along the coast and stopped for lunch by the sea.',
  'The teacher asked the students to read the first chapter.',
  'Fresh snow covered the mountains after the storm.',
  'He writes letters to his grandmother every month.',
  'The baker wakes up at four o clock every morning.',
  'Our team finally won the game in the last minute.',
  'The hotel room had a beautiful view of the lake.',
  'She found her keys under the cushion of the sofa.',
  'The farmer sold potatoes and carrots at the fair.',
  'We are going to visit our cousins next summer.',
  'The concert in the square lasted until midnight.',
  'Turn left at the church and the station is straight ahead.',
  'The cat slept all afternoon in the warm sunshine.',
  'A strong wind blew the leaves across the road.',
  'The doctor told him to drink more water every day.',
  'They built a wooden bridge over the little stream.',
];
const VOICES = ['slt', 'rms'];
const GAP = 0.8;
const METRICS_TOKEN = 'operator-token-long-audio';

let t: TestApp;
let key: string;
let accountId: string;
let long: string;
let parts: Array<{ text: string; voice: string; start: number; end: number }>;
let recordingSeconds: number;
const seconds = (file: string) => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }));

before(async () => {
  // Two decoders (the parallelism), the default threshold (60 s), pieces of 15 s (half the
  // default: eight pieces, so that a request arriving during the recording finds several to go).
  t = await createTestApp({ PARLA_STT_DECODERS: '2', PARLA_STT_PIECE_SECONDS: '15', PARLA_STT_CUT_VAD: 'silero', METRICS_TOKEN });
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 1_000_000 }));
  const files = SENTENCES.map((s, i) => flite(s, VOICES[i % 2]));
  long = soxConcat(files, GAP);
  let at = 0;
  parts = files.map((f, i) => {
    const part = { text: SENTENCES[i]!, voice: VOICES[i % 2]!, start: at, end: at + seconds(f) };
    at = part.end + GAP;
    return part;
  });
  recordingSeconds = seconds(long);
  assert.ok(recordingSeconds > 120, `a multi-minute recording (${recordingSeconds} s)`);
});
after(() => t.close());

async function post(
  url: string,
  file: string,
  fields: Record<string, string | string[]>,
  auth: Record<string, string> = { 'x-api-key': key },
) {
  const { body, contentType } = await multipart(readFileSync(file), fields, 'long.wav');
  return t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': contentType }, payload: body });
}

async function metric(name: string): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/** Users of the cipher-fast decoders (one per decoder taken), sampled until stop() is called. */
function watchDecoders(): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    const users = t.services.lifecycle.resident().find((m) => m.name === 'pocketsphinx:fast')?.users ?? 0;
    peak = Math.max(peak, users);
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

const decodersInUse = () => t.services.lifecycle.resident().find((m) => m.name === 'pocketsphinx:fast')?.users ?? 0;

let json: { text: string; duration: number; words: any[]; segments: any[] };

describe('a long recording through POST /api/v1/stt/transcribe', () => {
  test('pieces on both decoders, joined: words in order and at their sentence, segments numbered, one speaker per voice', async () => {
    const piecesBefore = await metric('parla_stt_pieces_total');
    const watch = watchDecoders();
    const res = await post('/api/v1/stt/transcribe', long, {
      response_format: 'verbose_json',
      timestamp_granularities: 'word,segment',
      diarize: 'true',
    });
    const peak = watch.stop();
    assert.equal(res.statusCode, 200, res.body);
    json = res.json();
    assert.ok(Math.abs(json.duration - recordingSeconds) < 0.05, `${json.duration} vs ${recordingSeconds}`);
    assert.equal(await metric('parla_stt_recordings_total{path="pieces"}'), 1);
    // The model ships with @ricky0123/vad-web: Silero found the pauses (decision #72).
    assert.equal(await metric('parla_stt_cut_recordings_total{vad="silero"}'), 1);
    assert.equal(await metric('parla_stt_cut_recordings_total{vad="webrtc"}'), 0);
    const pieces = (await metric('parla_stt_pieces_total')) - piecesBefore;
    assert.ok(pieces >= 5 && pieces <= 17, `${pieces} pieces of 7.5-22.5 s for ${recordingSeconds} s`);
    assert.equal(peak, 2, 'both decoders worked on it at once');

    // Words: in time order, inside the recording.
    let last = 0;
    for (const w of json.words) {
      assert.ok(w.start >= last && w.end >= w.start && w.end <= json.duration, JSON.stringify(w));
      last = w.end;
    }
    // Each sentence's words are found where it was said (the pieces' times moved to the recording's).
    const bad: string[] = [];
    for (const p of parts) {
      const heard = json.words
        .filter((w) => (w.start + w.end) / 2 >= p.start - 0.3 && (w.start + w.end) / 2 <= p.end + 0.3)
        .map((w) => w.word)
        .join(' ');
      const wer = wordErrorRate(p.text, heard);
      if (wer > 0.5) bad.push(`${p.start.toFixed(1)} s "${p.text}" heard "${heard}" (${wer.toFixed(2)})`);
    }
    assert.ok(bad.length <= 2, `sentences not found at their time:\n${bad.join('\n')}`);
    const all = wordErrorRate(SENTENCES.join(' '), json.text);
    assert.ok(all <= 0.3, `word error rate ${all}: ${json.text}`);

    // Segments: ids 0..n-1, in order, their texts making up the text.
    assert.deepEqual(
      json.segments.map((s) => s.id),
      json.segments.map((_, i) => i),
    );
    for (let i = 0; i < json.segments.length; i++) {
      const s = json.segments[i]!;
      assert.ok(s.end >= s.start && s.end <= json.duration && (i === 0 || s.start >= json.segments[i - 1]!.end), JSON.stringify(s));
    }
    assert.equal(json.segments.map((s) => s.text).join(' '), json.text);

    // Speakers: the voices' sentences are spread over every piece; each voice keeps one label.
    assert.equal(new Set(json.words.map((w) => w.speaker)).size, 2, 'two voices, two speakers');
    const labelOf = (p: (typeof parts)[number]) => {
      const counts = new Map<number, number>();
      for (const w of json.words)
        if ((w.start + w.end) / 2 >= p.start && (w.start + w.end) / 2 <= p.end) counts.set(w.speaker, (counts.get(w.speaker) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    };
    const mislabeled = parts.filter((p) => labelOf(p) !== (p.voice === VOICES[0] ? 0 : 1)).map((p) => `${p.start.toFixed(1)} s ${p.voice}`);
    assert.ok(mislabeled.length <= 2, `sentences given the other voice's label: ${mislabeled.join(', ')}`);
  });

  test('srt on the OpenAI dialect and vtt from SttService.transcribe with progress: numbered cues, in order, within the recording, the same words', async () => {
    const auth = await t.services.authenticator.authenticate(key);
    const progress: number[] = [];
    const [srtRes, served] = await Promise.all([
      post('/v1/audio/transcriptions', long, { model: 'cipher-fast', response_format: 'srt' }, { authorization: `Bearer ${key}` }),
      t.services.stt.transcribe(auth, {
        requestId: 'long-audio-vtt',
        endpoint: 'universal',
        options: parseSttFields(
          new Map([
            ['model', 'cipher-fast'],
            ['response_format', 'vtt'],
          ]),
          'universal',
        ),
        audio: new Uint8Array(readFileSync(long)),
        onProgress: (f) => progress.push(f),
      }),
    ]);
    assert.equal(srtRes.statusCode, 200, srtRes.body);
    // Progress: after each piece, rising to 1.
    assert.ok(progress.length >= 3, JSON.stringify(progress));
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! > progress[i - 1]!, JSON.stringify(progress));
    assert.ok(progress[0]! > 0 && progress.at(-1) === 1, JSON.stringify(progress));
    const vtt = render('vtt', served.transcript, {
      language: served.language,
      duration: served.duration,
      model: served.model,
      provider: served.provider,
      engine: served.engine,
      creditsUsed: served.credits,
      includeWords: false,
      includeSegments: false,
      diarized: false,
    }) as string;
    const toSeconds = (h: string, m: string, s: string, ms: string) => Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;
    for (const [body, format] of [
      [srtRes.body, 'srt'],
      [vtt, 'vtt'],
    ] as const) {
      const blocks = body.trim().split(/\n\n+/);
      if (format === 'vtt') assert.equal(blocks.shift()!.trim(), 'WEBVTT');
      let last = 0;
      const text: string[] = [];
      blocks.forEach((b, i) => {
        const lines = b.split('\n');
        if (format === 'srt') assert.equal(lines.shift(), String(i + 1), 'srt cues numbered from 1');
        const m = /^(\d\d):(\d\d):(\d\d)[,.](\d{3}) --> (\d\d):(\d\d):(\d\d)[,.](\d{3})$/.exec(lines.shift()!);
        assert.ok(m, b);
        const start = toSeconds(m[1]!, m[2]!, m[3]!, m[4]!);
        const end = toSeconds(m[5]!, m[6]!, m[7]!, m[8]!);
        assert.ok(start >= last && end >= start && end <= recordingSeconds + 0.001, b);
        last = end;
        text.push(...lines);
      });
      assert.ok(blocks.length >= json.segments.length, 'at least a cue per segment');
      const wer = wordErrorRate(json.text, text.join(' '));
      assert.ok(wer <= 0.1, `${format} says what verbose_json said (${wer})`);
    }
    assert.equal(await metric('parla_stt_recordings_total{path="pieces"}'), 3, 'both through the pieces path');
  });

  test('a short file keeps the one-pass path', async () => {
    const before = await metric('parla_stt_recordings_total{path="one_pass"}');
    const piecesBefore = await metric('parla_stt_pieces_total');
    const res = await post('/api/v1/stt/transcribe', flite(SENTENCES[0]!), {});
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(wordErrorRate(SENTENCES[0]!, res.json().text) <= 0.5, res.body);
    assert.equal(await metric('parla_stt_recordings_total{path="one_pass"}'), before + 1);
    assert.equal(await metric('parla_stt_pieces_total'), piecesBefore);
  });
});

describe('SttService.transcribe on a long recording', () => {
  let auth: AuthContext;
  before(async () => {
    auth = await t.services.authenticator.authenticate(key);
  });
  const request = (extra: object = {}) => ({
    requestId: 'long-audio-test',
    endpoint: 'universal' as const,
    options: parseSttFields(
      new Map([
        ['model', 'cipher-fast'],
        ['smart_format', 'false'],
        ['punctuate', 'false'],
      ]),
      'universal',
    ),
    audio: new Uint8Array(readFileSync(long)),
    ...extra,
  });

  test('a request arriving meanwhile is served between pieces; an abort then stops the rest, gives the decoders back and charges nothing', async () => {
    const balance = await t.services.store.getBalance(accountId, 'live');
    const abort = new AbortController();
    const progress: number[] = [];
    let afterAbort = 0;
    let short: Promise<{ statusCode: number; body: string; credits: number }> | null = null;
    const outcome = t.services.stt.transcribe(
      auth,
      request({
        onProgress: (f: number) => {
          if (abort.signal.aborted) afterAbort++;
          progress.push(f);
          // A short upload while every decoder is on this recording: it gets the next free one,
          // ahead of this recording's next piece; once it is answered, the client goes away.
          short ??= post('/api/v1/stt/transcribe', flite(SENTENCES[1]!), {}).then((res) => {
            abort.abort(new Error('client went away'));
            return { statusCode: res.statusCode, body: res.body, credits: res.statusCode === 200 ? res.json().credits_used : 0 };
          });
        },
      }),
      abort.signal,
    );
    await assert.rejects(outcome, /client went away/, 'the long recording was still being recognized when the short one was answered');
    const answered = await short!;
    assert.equal(answered.statusCode, 200, answered.body);
    assert.ok(progress.at(-1)! < 1, JSON.stringify(progress));
    assert.equal(afterAbort, 0, 'no progress after the abort');
    assert.equal(decodersInUse(), 0, 'every decoder is back once the request has failed');
    assert.equal(await t.services.store.getBalance(accountId, 'live'), balance - answered.credits, "the long recording's hold is released");
    const res = await post('/api/v1/stt/transcribe', flite(SENTENCES[2]!), {});
    assert.equal(res.statusCode, 200, res.body);
  });
});
