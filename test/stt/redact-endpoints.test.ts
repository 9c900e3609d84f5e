// redact and profanity_filter on the native endpoints, on real recognized speech: the batch
// endpoints (POST /api/v1/stt/transcribe, cipher, lucid) and the native real-time socket (finals
// redacted, interims withheld). docs/stt.md "Redaction", decision #44.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, soxConcat } from '../helpers/speech.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

let t: TestApp;
let rt: RealtimeServer;
let rtPort: number;
let key: string;
let speech: Buffer;
const NUMBER_WORDS = /\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\b/i;

before(async () => {
  t = await createTestApp();
  rt = new RealtimeServer(t.services, { recognizerWaitMs: 5000 });
  rtPort = await rt.listen(0, '127.0.0.1');
  ({ apiKey: key } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  speech = readFileSync(
    soxConcat(
      [
        flite('My card number is'),
        flite('four one one one one one one one one one one one one one one one'),
        flite('Thank you very much.'),
      ],
      0.3,
    ),
  );
  await t.services.registry.whenReady();
});
after(async () => {
  await rt.close();
  await t.close();
});

async function transcribe(path: string, fields: Record<string, string>) {
  const { body, contentType } = await multipart(speech, { response_format: 'verbose_json', timestamp_granularities: 'word', ...fields });
  const res = await t.app.inject({ method: 'POST', url: path, headers: { 'x-api-key': key, 'content-type': contentType }, payload: body });
  return { status: res.statusCode, body: res.json() as any };
}

describe('batch', () => {
  test('redact=pci on each endpoint: the card read out becomes [CREDIT_CARD_1] in text, segments and words', async () => {
    for (const path of ['/api/v1/stt/transcribe', '/api/v1/stt/cipher/transcribe']) {
      const r = await transcribe(path, { model: 'cipher-max', redact: 'pci' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.match(r.body.text, /\[CREDIT_CARD_1\]/, `${path}: ${r.body.text}`);
      assert.doesNotMatch(r.body.text, NUMBER_WORDS);
      assert.ok(r.body.segments.some((s: any) => s.text.includes('[CREDIT_CARD_1]')));
      assert.ok(
        r.body.words.some((w: any) => w.word === '[CREDIT_CARD_1]'),
        JSON.stringify(r.body.words.map((w: any) => w.word)),
      );
    }
  });

  test('redact=numbers on the Lucid endpoint; a bad redact value is 400 naming the field', async () => {
    const r = await transcribe('/api/v1/stt/lucid/transcribe', { redact: 'numbers' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.doesNotMatch(r.body.text, NUMBER_WORDS, r.body.text);
    const bad = await transcribe('/api/v1/stt/transcribe', { redact: 'pii' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details.field, 'redact');
  });
});

describe('native real-time socket', () => {
  test('redact=pci with interim_results: the Metadata echoes it; finals redacted, no interim sent', async () => {
    const q = new URLSearchParams({ api_key: key, model: 'cipher-max', interim_results: 'true', redact: 'pci', endpointing: '400' });
    const ws = new WebSocket(`wss://127.0.0.1:${rtPort}/api/v1/stt/realtime/stream?${q}`, { ca: rt.cert });
    const messages: any[] = [];
    ws.on('message', (d, bin) => !bin && messages.push(JSON.parse(d.toString())));
    const closed = new Promise<number>((r) => ws.on('close', (c) => r(c)));
    await new Promise((r, j) => {
      ws.once('open', r);
      ws.once('error', j);
    });
    const pcm = float32ToInt16(decodeWav(speech).channels[0]!);
    for (let i = 0; i < pcm.length; i += 1600) {
      const part = pcm.subarray(i, i + 1600);
      ws.send(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
      await new Promise((r) => setTimeout(r, 100));
    }
    ws.send(JSON.stringify({ type: 'CloseStream' }));
    assert.equal(await closed, 1000);
    assert.deepEqual(messages[0].redact, ['pci']);
    const results = messages.filter((m) => m.type === 'Results');
    assert.ok(results.length > 0 && results.every((m) => m.is_final), 'interims withheld');
    const said = results.map((m) => m.channel.alternatives[0].transcript).join(' ');
    assert.match(said, /\[CREDIT_CARD_1\]/, said);
  });

  test('hostile redact values are refused before the upgrade', async () => {
    for (const redact of ['pii', 'x'.repeat(300), '%00']) {
      const q = new URLSearchParams({ api_key: key, redact });
      const ws = new WebSocket(`wss://127.0.0.1:${rtPort}/api/v1/stt/realtime/stream?${q}`, { ca: rt.cert });
      const status = await new Promise<number>((resolve) => {
        ws.once('unexpected-response', (_req, res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('error', () => undefined);
      });
      assert.equal(status, 400, redact.slice(0, 20));
    }
  });
});
