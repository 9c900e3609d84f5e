// OpenAI's Realtime transcription socket (WS /v1/realtime) driven by the official `openai` package's
// OpenAIRealtimeWS, unchanged but for its base URL (https://HOST:<TLS port>/v1: it always connects
// with wss://) and key, trusting the self-signed certificate through its ws options: server_vad
// turns with speech_started / speech_stopped / committed / item added and done / delta / completed
// (usage), the words that come back, billing as the native stream's; turn_detection null with
// G.711 mu-law and client commits (no speech events); a browser's subprotocols with an ephemeral
// key from client_secrets; refusals as the client sees them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { flite, soxConcat, wordErrorRate } from '../helpers/speech.js';

const SENTENCES = ['Good morning, the meeting starts at nine.', 'Please bring the quarterly report.'];

let t: TestApp;
let rt: RealtimeServer;
let rtPort: number;
let apiPort: number;
let key: string;
let accountId: string;
let pcm24k: Buffer;
let mulaw8k: Buffer;

function rawOf(wav: string, args: string[], ext: string): Buffer {
  const out = path.join(tmpdir(), `parla-oai-rt-${process.pid}-${ext}`);
  execFileSync('sox', [wav, ...args, out]);
  return readFileSync(out);
}

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  apiPort = (t.app.server.address() as AddressInfo).port;
  rt = new RealtimeServer(t.services, { recognizerWaitMs: 5000 });
  rtPort = await rt.listen(0, '127.0.0.1');
  ({ apiKey: key, accountId } = await createTestAccount(t.services, { credits: 100_000 }));
  // Two sentences with a 1.2 s pause, then 1.5 s of silence: two turns under server_vad.
  const wav = soxConcat(
    SENTENCES.map((s) => flite(s)),
    1.2,
  );
  const tail = path.join(tmpdir(), `parla-oai-rt-${process.pid}-tail.wav`);
  execFileSync('sox', [wav, tail, 'pad', '0.3', '1.5']);
  pcm24k = rawOf(tail, ['-r', '24000', '-t', 'raw', '-e', 'signed', '-b', '16'], 'pcm');
  mulaw8k = rawOf(tail, ['-r', '8000', '-t', 'ul'], 'ul');
  await t.services.registry.whenReady();
});
after(async () => {
  await rt.close();
  await t.close();
});

interface Rt {
  rt: OpenAIRealtimeWS;
  events: any[];
  errors: any[];
  waitFor(pred: (e: any) => boolean, ms?: number): Promise<any>;
  closed: Promise<number>;
}

/** The official client, as its README opens it, on the TLS port with the self-signed certificate trusted. */
async function connect(model = 'gpt-realtime', apiKey = key): Promise<Rt> {
  const client = new OpenAI({ apiKey, baseURL: `https://127.0.0.1:${rtPort}/v1` });
  const socket = new OpenAIRealtimeWS({ model, options: { ca: rt.cert } }, client);
  const events: any[] = [];
  const errors: any[] = [];
  const waiters = new Set<() => void>();
  socket.on('event', (e) => {
    events.push(e);
    for (const w of waiters) w();
  });
  socket.on('error', (e) => {
    errors.push(e);
    for (const w of waiters) w();
  });
  const closed = new Promise<number>((r) => socket.socket.on('close', (code) => r(code)));
  const waitFor = (pred: (e: any) => boolean, ms = 30_000) =>
    new Promise<any>((resolve, reject) => {
      const check = () => {
        const e = events.find(pred);
        if (e) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(e);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out; got ${JSON.stringify(events.map((x) => x.type))} errors ${errors.map((e) => e.message).join('; ')}`));
      }, ms);
      waiters.add(check);
      check();
    });
  return { rt: socket, events, errors, waitFor, closed };
}

function append(r: Rt, bytes: Buffer, chunk: number): void {
  for (let i = 0; i < bytes.length; i += chunk)
    r.rt.send({ type: 'input_audio_buffer.append', audio: bytes.subarray(i, i + chunk).toString('base64') });
}

describe('OpenAI Realtime transcription with the official client', () => {
  test('server_vad, audio/pcm 24 kHz: two turns, each speech_started -> speech_stopped -> committed -> item added/done -> delta -> completed, billed like the native stream', async () => {
    const before = (await t.services.store.listUsage(accountId, 'live', 50)).length;
    const r = await connect();
    const created = await r.waitFor((e) => e.type === 'session.created');
    assert.equal(created.session.type, 'transcription');
    r.rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe', language: 'en' },
            noise_reduction: { type: 'near_field' },
            turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
          },
        },
      },
    });
    const updated = await r.waitFor((e) => e.type === 'session.updated');
    assert.equal(updated.session.audio.input.turn_detection.silence_duration_ms, 500);
    assert.deepEqual(updated.session.audio.input.noise_reduction, { type: 'near_field' });
    append(r, pcm24k, 4800); // 100 ms per event
    await r.waitFor(
      (e) =>
        e.type === 'conversation.item.input_audio_transcription.completed' &&
        e.transcript &&
        r.events.filter((x) => x.type === 'conversation.item.input_audio_transcription.completed').length >= 2,
      60_000,
    );
    const types = r.events.map((e) => e.type);
    const completed = r.events.filter((e) => e.type === 'conversation.item.input_audio_transcription.completed');
    for (const c of completed) {
      const id = c.item_id;
      const order = [
        'input_audio_buffer.speech_started',
        'input_audio_buffer.speech_stopped',
        'input_audio_buffer.committed',
        'conversation.item.added',
        'conversation.item.done',
        'conversation.item.input_audio_transcription.delta',
        'conversation.item.input_audio_transcription.completed',
      ].map((type) => r.events.findIndex((e) => e.type === type && (e.item_id === id || e.item?.id === id)));
      assert.ok(
        order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1]!)),
        `events of ${id} in order: ${JSON.stringify(order)} ${JSON.stringify(types)}`,
      );
      const delta = r.events.find((e) => e.type === 'conversation.item.input_audio_transcription.delta' && e.item_id === id);
      assert.equal(delta.content_index, 0);
      assert.equal(delta.delta, c.transcript);
      assert.equal(c.content_index, 0);
      assert.equal(c.usage.type, 'duration');
      assert.ok(c.usage.seconds > 0.5, JSON.stringify(c.usage));
      assert.match(c.event_id, /^event_/);
    }
    const committed = r.events.filter((e) => e.type === 'input_audio_buffer.committed');
    assert.equal(committed[1].previous_item_id, committed[0].item_id);
    const text = completed.map((c) => c.transcript).join(' ');
    if (process.env.SHOW) console.log(JSON.stringify(r.events.map((e) => ({ ...e, session: undefined }))));
    assert.ok(wordErrorRate(SENTENCES.join(' '), text) < 0.5, text);
    const started = r.events.find((e) => e.type === 'input_audio_buffer.speech_started');
    assert.ok(started.audio_start_ms >= 0 && started.audio_start_ms < 600, JSON.stringify(started));
    r.rt.close();
    assert.equal(await r.closed, 1000);
    // Per started second of the audio received, at cipher-max's rate (gpt-4o-transcribe's mapping), one row.
    const seconds = pcm24k.length / 2 / 24000;
    let rows: any[] = [];
    for (let i = 0; i < 100 && rows.length <= before; i++) {
      rows = await t.services.store.listUsage(accountId, 'live', 50);
      await new Promise((res) => setTimeout(res, 50));
    }
    const row = rows.find((x) => x.kind === 'stt_realtime');
    assert.equal(row.model, 'cipher-max');
    assert.equal(row.credits, Math.ceil(seconds) * t.services.registry.sttRate('cipher-max'));
  });

  test("semantic_vad: items end with the turn layer's turns (src/stt/live/turns.ts), in the same events and order as server_vad", async () => {
    const r = await connect();
    await r.waitFor((e) => e.type === 'session.created');
    r.rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            transcription: { model: 'gpt-4o-mini-transcribe', language: 'en' },
            turn_detection: { type: 'semantic_vad', eagerness: 'high' },
          },
        },
      },
    });
    const updated = await r.waitFor((e) => e.type === 'session.updated');
    assert.deepEqual(updated.session.audio.input.turn_detection, { type: 'semantic_vad', eagerness: 'high' });
    append(r, pcm24k, 4800);
    const isCompleted = (e: any) => e.type === 'conversation.item.input_audio_transcription.completed';
    await r.waitFor((e) => isCompleted(e) && r.events.filter(isCompleted).length >= 2, 60_000);
    const completed = r.events.filter(isCompleted);
    for (const c of completed) {
      const order = [
        'input_audio_buffer.speech_started',
        'input_audio_buffer.speech_stopped',
        'input_audio_buffer.committed',
        'conversation.item.input_audio_transcription.completed',
      ].map((type) => r.events.findIndex((e) => e.type === type && e.item_id === c.item_id));
      assert.ok(
        order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1]!)),
        `events of ${c.item_id} in order: ${JSON.stringify(order)}`,
      );
      const stopped = r.events.find((e) => e.type === 'input_audio_buffer.speech_stopped' && e.item_id === c.item_id);
      assert.ok(stopped.audio_end_ms > 0, JSON.stringify(stopped));
    }
    assert.ok(
      wordErrorRate(SENTENCES.join(' '), completed.map((c) => c.transcript).join(' ')) < 0.5,
      completed.map((c) => c.transcript).join(' | '),
    );
    // One item per sentence: the 1.2 s pause between them ends the first turn, nothing inside a sentence does.
    assert.equal(completed.length, 2, completed.map((c) => c.transcript).join(' | '));
    r.rt.close();
    await r.closed;
  });

  test('turn_detection null, audio/pcmu: no speech events, the client commits; a commit of nothing is an error event; clear', async () => {
    const r = await connect('gpt-4o-mini-transcribe');
    await r.waitFor((e) => e.type === 'session.created');
    r.rt.send({ type: 'input_audio_buffer.commit', event_id: 'evt_empty' });
    const empty = await r.waitFor((e) => e.type === 'error');
    assert.equal(empty.error.code, 'input_audio_buffer_commit_empty');
    assert.equal(empty.error.event_id, 'evt_empty');
    r.rt.send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcmu' }, turn_detection: null } } },
    });
    await r.waitFor((e) => e.type === 'session.updated');
    append(r, mulaw8k.subarray(0, 8000), 1600); // 1 s, then cleared
    r.rt.send({ type: 'input_audio_buffer.clear' });
    await r.waitFor((e) => e.type === 'input_audio_buffer.cleared');
    append(r, mulaw8k, 1600);
    r.rt.send({ type: 'input_audio_buffer.commit' });
    const done = await r.waitFor((e) => e.type === 'conversation.item.input_audio_transcription.completed', 60_000);
    assert.ok(wordErrorRate(SENTENCES.join(' '), done.transcript) < 0.6, done.transcript);
    assert.ok(Math.abs(done.usage.seconds - mulaw8k.length / 8000) < 0.01, JSON.stringify(done.usage));
    assert.equal(r.events.filter((e) => e.type.startsWith('input_audio_buffer.speech')).length, 0);
    // Fixed once audio flows.
    r.rt.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { turn_detection: { type: 'server_vad' } } } } });
    await r.waitFor((e) => e.type === 'error' && e.error.code === 'invalid_value');
    r.rt.close();
    await r.closed;
  });

  test('a browser: subprotocols realtime + openai-insecure-api-key.<ek_ from client_secrets>, on the API port too', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${apiPort}/v1` });
    const secret = await client.realtime.clientSecrets.create({ session: { type: 'transcription' } });
    for (const url of [
      `ws://127.0.0.1:${apiPort}/v1/realtime?intent=transcription`,
      `wss://127.0.0.1:${rtPort}/v1/realtime?intent=transcription`,
    ]) {
      const ws = new WebSocket(url, ['realtime', `openai-insecure-api-key.${secret.value}`], { ca: rt.cert });
      const first = await new Promise<any>((resolve, reject) => {
        ws.once('message', (d) => resolve(JSON.parse(d.toString())));
        ws.once('error', reject);
      });
      assert.equal(ws.protocol, 'realtime');
      assert.equal(first.type, 'session.created');
      ws.close();
    }
  });

  test('refusals before the upgrade, as the client reports them', async () => {
    const bad = await connect('gpt-realtime', 'svc_live_' + 'x'.repeat(40));
    await bad.closed.catch(() => undefined);
    assert.match(bad.errors.map((e) => e.message).join(' '), /401/);
    const unknown = await connect('no-such-model');
    await unknown.closed.catch(() => undefined);
    assert.match(unknown.errors.map((e) => e.message).join(' '), /400/);
  });
});
