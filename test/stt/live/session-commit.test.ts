// The live session's client-driven mode (OpenAI Realtime's turn_detection null: vad false) and
// clear(), behind a recording transport, on the real PocketSphinx engine and a real credit hold:
// no VAD is made or run, utterances end only at Finalize; a clear drops what was heard unrecognized.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestAccount, createTestApp, type TestApp } from '../../helpers/app.js';
import { flite, soxConcat, words } from '../../helpers/speech.js';
import { decodeWav } from '../../../src/audio/wav.js';
import { float32ToInt16 } from '../../../src/audio/pcm.js';
import { RealtimeSession } from '../../../src/stt/live/session.js';
import { LiveCredits } from '../../../src/stt/live-credits.js';
import type { Transport } from '../../../src/stt/live/session-output.js';
import { NativeOutput } from '../../../src/realtime/native-output.js';
import { parseRealtimeParams } from '../../../src/realtime/params.js';

let t: TestApp;
let first: Int16Array;
let second: Int16Array;

before(async () => {
  t = await createTestApp();
  const pcm = (text: string) => float32ToInt16(decodeWav(readFileSync(soxConcat([flite(text)], 0.1))).channels[0]!);
  first = pcm('Good morning, the meeting starts at nine.');
  second = pcm('Please bring the quarterly report.');
  await t.services.registry.whenReady();
});
after(() => t.close());

class RecordingTransport implements Transport {
  messages: any[] = [];
  send(m: Record<string, unknown>) {
    this.messages.push(m);
  }
  close() {}
  pause() {}
  resume() {}
}

async function session(vad: boolean) {
  const { apiKey } = await createTestAccount(t.services);
  const auth = await t.services.authenticator.authenticate(apiKey);
  const params = parseRealtimeParams(
    new URLSearchParams({ interim_results: 'true', endpointing: '300', punctuate: 'false', smart_format: 'false' }),
  );
  const work = await t.services.billing.begin(auth, {
    requestId: `req_${Date.now()}`,
    kind: 'stt_realtime',
    model: params.model,
    credits: 120,
    characters: 0,
  });
  const stream = await t.services.registry.sttBinding('cipher-fast')!.engine.openStream({ language: 'en', profile: 'fast', keywords: [] });
  const tr = new RecordingTransport();
  const s = new RealtimeSession(new NativeOutput(tr), {
    requestId: 'req_commit_test',
    params,
    language: 'en',
    engine: 'pocketsphinx',
    stream,
    credits: new LiveCredits(work, { heldSeconds: 60, creditsPerSecond: 2, blockSeconds: 60 }),
    idleTimeoutMs: 10_000,
    maxSessionSeconds: 60,
    vad,
    onEnd: () => undefined,
  });
  await s.start();
  return { s, tr };
}

const bytes = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * 16000) * 2);

test('vad false: no VAD is created, no speech events, no endpointed or interim results; Finalize ends the utterance', async () => {
  const { s, tr } = await session(false);
  assert.equal((s as unknown as { vad: unknown }).vad, null);
  s.onAudio(bytes(first));
  s.onAudio(silence(1.5)); // would end the utterance (endpointing 300) with a VAD
  s.onText('{"type":"Finalize"}');
  await s.end('client_closed');
  const results = tr.messages.filter((m) => m.type === 'Results');
  assert.equal(tr.messages.filter((m) => m.type === 'SpeechStarted').length, 0);
  assert.equal(results.filter((m) => !m.is_final).length, 0, 'no interim results');
  const finals = results.filter((m) => m.channel.alternatives[0].transcript);
  assert.equal(finals.length, 1);
  assert.equal(finals[0].from_finalize, true);
  assert.ok(words(finals[0].channel.alternatives[0].transcript).includes('morning'), finals[0].channel.alternatives[0].transcript);
});

test('clear(): what was heard since the last final is dropped, the next Finalize has only what followed', async () => {
  const { s, tr } = await session(false);
  s.onAudio(bytes(first));
  s.clear();
  s.onAudio(bytes(second));
  s.onText('{"type":"Finalize"}');
  await s.end('client_closed');
  const text = tr.messages
    .filter((m) => m.type === 'Results' && m.is_final)
    .map((m) => m.channel.alternatives[0].transcript)
    .join(' ');
  const w = words(text);
  assert.ok(w.includes('quarterly') || w.includes('report'), text);
  assert.ok(!w.includes('morning') && !w.includes('meeting'), text);
  // The cleared audio was received: it is billed.
  const summary = tr.messages.find((m) => m.type === 'Summary');
  assert.ok(summary.duration >= (first.length + second.length) / 16000 - 0.01, JSON.stringify(summary));
});
