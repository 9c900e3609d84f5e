// The native real-time socket's turn extension (turns=true, docs/realtime.md "Turns"): TurnInfo
// messages from the session's turn layer beside the usual Results (a final Result at each turn's
// end), ForceEndTurn, and the turn parameters refused when out of range or without turns=true.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { flite, padded, soxConcat, wordErrorRate } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

const SENTENCES = ['Good morning, the meeting starts at nine.', 'Please bring the quarterly report.'];
let t: TestApp;
let rt: RealtimeServer;
let port: number;
let key: string;
let audio: Buffer;

before(async () => {
  t = await createTestApp();
  rt = new RealtimeServer(t.services, { recognizerWaitMs: 5000 });
  port = await rt.listen(0, '127.0.0.1');
  ({ apiKey: key } = await createTestAccount(t.services));
  const pcm = float32ToInt16(
    decodeWav(
      readFileSync(
        padded(
          soxConcat(
            SENTENCES.map((s) => flite(s)),
            1.5,
          ),
          0.3,
          1.5,
        ),
      ),
    ).channels[0]!,
  );
  audio = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  await t.services.registry.whenReady();
});
after(async () => {
  await rt.close();
  await t.close();
});

function open(query: string): Promise<{ ws: WebSocket; messages: any[]; closed: Promise<number>; status: Promise<number> }> {
  const ws = new WebSocket(`wss://127.0.0.1:${port}/api/v1/stt/realtime/stream?api_key=${key}&${query}`, { ca: rt.cert });
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  const closed = new Promise<number>((r) => ws.on('close', (c) => r(c)));
  const status = new Promise<number>((r) => {
    ws.once('open', () => r(101));
    ws.once('unexpected-response', (_q, res) => r(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
  return Promise.resolve({ ws, messages, closed, status });
}

test('turns=true: StartOfTurn ... EndOfTurn per sentence, each with a final Result of the same words', async () => {
  const s = await open('turns=true&interim_results=false');
  assert.equal(await s.status, 101);
  for (let i = 0; i < audio.length; i += 3200) s.ws.send(audio.subarray(i, i + 3200));
  s.ws.send('{"type":"CloseStream"}');
  await s.closed;
  const ends = s.messages.filter((m) => m.type === 'TurnInfo' && m.event === 'EndOfTurn');
  assert.equal(ends.length, 2, JSON.stringify(s.messages.map((m) => m.event ?? m.type)));
  assert.deepEqual(
    s.messages.filter((m) => m.type === 'TurnInfo' && m.event === 'StartOfTurn').map((m) => m.turn_index),
    [0, 1],
  );
  for (const [i, e] of ends.entries()) {
    assert.ok(wordErrorRate(SENTENCES[i]!, e.transcript) < 0.5, e.transcript);
    assert.equal(e.trigger, 'pause');
    assert.ok(e.words.length > 0 && typeof e.words[0].start === 'number');
  }
  const finals = s.messages.filter((m) => m.type === 'Results' && m.is_final && m.channel.alternatives[0].transcript);
  assert.deepEqual(
    finals.map((m) => m.channel.alternatives[0].transcript),
    ends.map((e) => e.transcript),
  );
  assert.equal(s.messages.at(-1).type, 'Summary');
});

test('ForceEndTurn ends the open turn at once', async () => {
  const s = await open('turns=true&eot_timeout_ms=10000&eot_threshold=0.9');
  assert.equal(await s.status, 101);
  const firstSentence = audio.subarray(0, Math.round(2.8 * 16000) * 2);
  for (let i = 0; i < firstSentence.length; i += 3200) s.ws.send(firstSentence.subarray(i, i + 3200));
  s.ws.send('{"type":"ForceEndTurn"}');
  for (let i = 0; i < 100 && !s.messages.some((m) => m.event === 'EndOfTurn'); i++) await new Promise((r) => setTimeout(r, 100));
  const end = s.messages.find((m) => m.event === 'EndOfTurn');
  assert.equal(end?.trigger, 'client');
  s.ws.send('{"type":"CloseStream"}');
  await s.closed;
});

test('turn parameters out of range, or without turns=true, are refused before the upgrade', async () => {
  for (const q of [
    'turns=true&eot_threshold=0.95',
    'turns=true&eager_eot_threshold=0.8&eot_threshold=0.6',
    'turns=true&eot_timeout_ms=100',
    'turns=maybe',
    'eot_threshold=0.7',
  ]) {
    const s = await open(q);
    assert.equal(await s.status, 400, q);
  }
});
