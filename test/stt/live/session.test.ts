// RealtimeSession behind a recording transport (no socket), on the real PocketSphinx engine and a
// real credit hold: bursts and backpressure, live transcript against batch, order of messages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../../helpers/app.js';
import { espeak, ffmpegConvert, flite, padded, soxConcat } from '../../helpers/speech.js';
import { decodeWav } from '../../../src/audio/wav.js';
import { float32ToInt16 } from '../../../src/audio/pcm.js';
import { RealtimeSession } from '../../../src/stt/live/session.js';
import { LiveCredits } from '../../../src/stt/live-credits.js';
import type { Transport } from '../../../src/stt/live/session-output.js';
import { NativeOutput } from '../../../src/realtime/native-output.js';
import { parseRealtimeParams } from '../../../src/realtime/params.js';

let t: TestApp;
let speech: Int16Array;
let speechWav: string;

before(async () => {
  t = await createTestApp();
  speechWav = soxConcat([flite('Good morning, the meeting starts at nine.'), flite('Please bring the quarterly report.')], 1.0);
  const wav = decodeWav(
    readFileSync(soxConcat([flite('Good morning, the meeting starts at nine.'), flite('Please bring the quarterly report.')], 1.0)),
  );
  speech = float32ToInt16(wav.channels[0]!);
  await t.services.registry.whenReady();
});
after(() => t.close());

class RecordingTransport implements Transport {
  messages: any[] = [];
  events: string[] = [];
  closed: { code: number; reason: string } | null = null;
  private onClose: (() => void) | null = null;
  readonly done = new Promise<void>((r) => (this.onClose = r));
  send(m: Record<string, unknown>) {
    this.messages.push(m);
  }
  close(code: number, reason: string) {
    this.closed = { code, reason };
    this.onClose?.();
  }
  pause() {
    this.events.push('pause');
  }
  resume() {
    this.events.push('resume');
  }
}

async function session(query: Record<string, string>, credits = 100_000) {
  const { apiKey } = await createTestAccount(t.services, { credits });
  const auth = await t.services.authenticator.authenticate(apiKey);
  const params = parseRealtimeParams(new URLSearchParams(query));
  const work = await t.services.billing.begin(auth, {
    requestId: `req_${Date.now()}`,
    kind: 'stt_realtime',
    model: params.model,
    credits: 120,
    characters: 0,
  });
  const stream = await t.services.registry.sttBinding('cipher-fast')!.engine.openStream({ language: 'en', profile: 'fast', keywords: [] });
  const tr = new RecordingTransport();
  let ended: { seconds: number; credits: number } | null = null;
  const s = new RealtimeSession(new NativeOutput(tr), {
    requestId: 'req_session_test',
    params,
    language: 'en',
    engine: 'pocketsphinx',
    stream,
    credits: new LiveCredits(work, { heldSeconds: 60, creditsPerSecond: 2, blockSeconds: 60 }),
    idleTimeoutMs: 10_000,
    maxSessionSeconds: 60,
    onEnd: (x) => (ended = x),
  });
  await s.start();
  return { s, tr, ended: () => ended };
}

const finals = (tr: RecordingTransport) =>
  tr.messages.filter((m) => m.type === 'Results' && m.is_final && m.channel.alternatives[0].transcript);

test('a burst far faster than real time pauses the socket, resumes it when the backlog drains, and loses nothing', async () => {
  const { s, tr, ended } = await session({ interim_results: 'false', punctuate: 'false', smart_format: 'false' });
  // The speech (about 6.5 s, more than the 5 s backlog bound) in 100 ms frames, all at once.
  const audio = speech;
  for (let i = 0; i < audio.length; i += 1600) {
    const part = audio.subarray(i, i + 1600);
    s.onAudio(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  }
  assert.deepEqual(tr.events, ['pause'], 'more than 5 s waiting: reading stops');
  s.onText(JSON.stringify({ type: 'CloseStream' }));
  await tr.done;
  assert.equal(tr.events[1], 'resume');
  assert.equal(tr.closed!.code, 1000);
  const said = finals(tr)
    .map((m) => m.channel.alternatives[0].transcript)
    .join(' ');
  assert.match(said, /^good morning.*report$/i, `everything recognized: ${said}`);
  const summary = tr.messages.at(-1);
  assert.equal(summary.type, 'Summary');
  assert.ok(Math.abs(summary.duration - audio.length / 16000) < 0.001);
  assert.equal(ended()!.credits, 2 * Math.ceil(audio.length / 16000));
});

test('live finals carry the same words as the batch transcript of the same audio', async () => {
  const { s, tr } = await session({ interim_results: 'true', punctuate: 'false', smart_format: 'false', endpointing: '300' });
  const audio = new Int16Array(speech.length + 16000);
  audio.set(speech);
  for (let i = 0; i < audio.length; i += 3200) {
    const part = audio.subarray(i, i + 3200);
    s.onAudio(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  }
  s.onText(JSON.stringify({ type: 'CloseStream' }));
  await tr.done;
  const live = finals(tr)
    .map((m) => m.channel.alternatives[0].transcript)
    .join(' ');
  const batch = await t.services.registry.sttBinding('cipher-fast')!.engine.recognize(speech, { language: 'en', profile: 'fast' });
  const batchText = batch.utterances.flatMap((u) => u.words.map((w) => w.word)).join(' ');
  assert.equal(live, batchText);
  // Every word of a final lies inside its result's span on the stream timeline.
  for (const m of finals(tr)) {
    for (const w of m.channel.alternatives[0].words) {
      assert.ok(
        w.start >= m.start - 0.001 && w.end <= m.start + m.duration + 0.001,
        JSON.stringify({ w, start: m.start, duration: m.duration }),
      );
    }
  }
});

for (const [container, ext] of [
  ['Ogg', 'ogg'],
  ['WebM', 'webm'],
] as const) {
  test(`encoding=opus: ${container}/Opus split across arbitrary frames is decoded live and billed by its duration`, async () => {
    const bytes = readFileSync(ffmpegConvert(speechWav, ext, ['-c:a', 'libopus', '-b:a', '24k']));
    const { s, tr, ended } = await session({ encoding: 'opus', interim_results: 'false', punctuate: 'false', smart_format: 'false' });
    assert.equal(tr.messages[0].encoding, 'opus');
    assert.equal(tr.messages[0].sample_rate, null);
    for (let i = 0; i < bytes.length; i += 777) s.onAudio(bytes.subarray(i, i + 777));
    s.onText(JSON.stringify({ type: 'CloseStream' }));
    await tr.done;
    assert.equal(tr.closed!.code, 1000);
    const said = finals(tr)
      .map((m) => m.channel.alternatives[0].transcript)
      .join(' ');
    assert.match(said, /morning.*report/, said);
    const summary = tr.messages.at(-1);
    assert.ok(Math.abs(summary.duration - speech.length / 16000) < 0.1, `duration ${summary.duration} vs ${speech.length / 16000}`);
    assert.equal(ended()!.credits, 2 * summary.billed_seconds);
  });
}

test('encoding=opus with bytes that are not Ogg or WebM: an INVALID_AUDIO error and close 1007, nothing billed', async () => {
  const { s, tr, ended } = await session({ encoding: 'opus' });
  s.onAudio(Buffer.from(speech.buffer, speech.byteOffset, 3200));
  await tr.done;
  assert.equal(tr.closed!.code, 1007);
  assert.ok(tr.messages.some((m) => m.type === 'Error' && m.code === 'INVALID_AUDIO'));
  assert.equal(ended()!.credits, 0);
});

test('the default endpointing (10 ms, as on Deepgram) ends an utterance at the pause between two sentences; endpointing=1000 waits it out', async () => {
  const wav = decodeWav(
    readFileSync(soxConcat([flite('Good morning, the meeting starts at nine.'), flite('Please bring the quarterly report.')], 0)),
  );
  const pcm = float32ToInt16(wav.channels[0]!);
  const audio = new Int16Array(pcm.length + 16000);
  audio.set(pcm);
  const run = async (query: Record<string, string>) => {
    const { s, tr } = await session({ interim_results: 'false', punctuate: 'false', smart_format: 'false', ...query });
    for (let i = 0; i < audio.length; i += 320) {
      const part = audio.subarray(i, i + 320);
      s.onAudio(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
    }
    s.onText(JSON.stringify({ type: 'CloseStream' }));
    await tr.done;
    return { meta: tr.messages[0], finals: finals(tr) };
  };
  const short = await run({});
  assert.equal(short.meta.endpointing, 10);
  const ends = short.finals.filter((m) => m.speech_final);
  assert.ok(ends.length >= 2, `the pause ended an utterance: ${short.finals.map((m) => m.channel.alternatives[0].transcript).join(' | ')}`);
  const beforeReport = short.finals.slice(
    0,
    short.finals.findIndex((m) => /report/.test(m.channel.alternatives[0].transcript)),
  );
  assert.ok(
    beforeReport.some((m) => /nine/.test(m.channel.alternatives[0].transcript)),
    'the first sentence was final before the second was heard',
  );
  const long = await run({ endpointing: '1000' });
  assert.equal(long.meta.endpointing, 1000);
  assert.equal(
    long.finals.length,
    1,
    `one utterance across the pause: ${long.finals.map((m) => m.channel.alternatives[0].transcript).join(' | ')}`,
  );
  assert.match(long.finals[0].channel.alternatives[0].transcript, /nine.*report/);
});

/** Seconds to the first sample louder than 2% of full scale: where the speech in a clean file begins. */
function firstSound(file: string): number {
  const pcm = decodeWav(readFileSync(file)).channels[0]!;
  const i = pcm.findIndex((x) => Math.abs(x) > 0.02);
  assert.ok(i >= 0);
  return i / 16000;
}

test('SpeechStarted fires once per onset of speech, at the onset: not at 0 in a quiet room, not again inside or after a sentence', async () => {
  const sentence = espeak('Good morning, the meeting starts at nine o clock.');
  const other = espeak('Please bring the quarterly report with you.');
  const stream = async (file: string, query: Record<string, string> = {}) => {
    const pcm = float32ToInt16(decodeWav(readFileSync(file)).channels[0]!);
    const { s, tr } = await session({ interim_results: 'true', ...query });
    for (let i = 0; i < pcm.length; i += 1600) {
      const part = pcm.subarray(i, i + 1600);
      s.onAudio(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
    }
    s.onText(JSON.stringify({ type: 'CloseStream' }));
    await tr.done;
    return { starts: tr.messages.filter((m) => m.type === 'SpeechStarted').map((m) => m.timestamp as number), finals: finals(tr) };
  };

  // One sentence after 1.5 s of room noise (-50 dBFS), then 1.5 s more: the default endpointing
  // (10 ms) splits it into utterances at its short pauses; speech still started once.
  const onset = 1.5 + firstSound(sentence);
  const one = await stream(padded(sentence, 1.5, 1.5, 0.003));
  assert.equal(one.starts.length, 1, `SpeechStarted at ${one.starts.join(', ')}`);
  assert.ok(Math.abs(one.starts[0]! - onset) <= 0.1, `SpeechStarted at ${one.starts[0]} s, speech begins at ${onset.toFixed(3)} s`);
  assert.ok(one.finals.length >= 1);

  // Two sentences 1.5 s apart: two onsets, each before the words it starts.
  const gap = 1.5;
  const firstLength = decodeWav(readFileSync(sentence)).channels[0]!.length / 16000;
  const second = 1.0 + firstLength + gap + firstSound(other);
  const two = await stream(padded(soxConcat([sentence, other], gap), 1.0, 1.0, 0.003), { endpointing: '300' });
  assert.equal(two.starts.length, 2, `SpeechStarted at ${two.starts.join(', ')}`);
  assert.ok(Math.abs(two.starts[0]! - (1.0 + firstSound(sentence))) <= 0.1, `first at ${two.starts[0]}`);
  assert.ok(Math.abs(two.starts[1]! - second) <= 0.1, `second at ${two.starts[1]}, speech at ${second.toFixed(3)}`);
  const reportWord = two.finals
    .flatMap((m) => m.channel.alternatives[0].words)
    .find((w: { word: string }) => /report|quarterly|bring/.test(w.word));
  assert.ok(
    reportWord && reportWord.start >= two.starts[1]! - 0.1,
    `the second sentence's words follow its SpeechStarted: ${JSON.stringify(reportWord)}`,
  );
});
