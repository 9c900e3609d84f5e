// Deepgram's redact and profanity_filter through the official @deepgram/sdk, on real recognized
// speech: POST /v1/listen (transcribeFile) and the live socket (listen.v1.connect), where finals
// are redacted and interim results withheld (docs/compatibility.md, decision #44).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type Deepgram, DeepgramClient } from '@deepgram/sdk';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { flite, soxConcat } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';

let t: TestApp;
let port: number;
let client: DeepgramClient;
let speech: Buffer;

// Spoken digit by digit, as callers read a card number out: 4111 1111 1111 1111 passes Luhn.
const CARD = 'four one one one one one one one one one one one one one one one';

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  const { apiKey } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 });
  client = new DeepgramClient({ apiKey, baseUrl: `http://127.0.0.1:${port}` });
  speech = readFileSync(soxConcat([flite('My card number is'), flite(CARD), flite('Thank you very much.')], 0.3));
  await t.services.registry.whenReady();
});
after(async () => {
  await t.close();
});

const transcriptOf = (r: Deepgram.ListenV1Response) => r.results.channels[0]!.alternatives![0]!.transcript ?? '';
const NUMBER_WORDS = /\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\b/i;

describe('POST /v1/listen', () => {
  test('redact=numbers: the spoken digits become [NUMBER_1] in the transcript and the words; the rest stays', async () => {
    const plain = transcriptOf((await client.listen.v1.media.transcribeFile(speech, { model: 'nova-3' })) as Deepgram.ListenV1Response);
    assert.match(plain, NUMBER_WORDS, `the recognizer heard digits: "${plain}"`);
    const r = (await client.listen.v1.media.transcribeFile(speech, {
      model: 'nova-3',
      redact: 'numbers',
    } as never)) as Deepgram.ListenV1Response;
    const said = transcriptOf(r);
    assert.match(said, /\[NUMBER_1\]/, said);
    assert.doesNotMatch(said, NUMBER_WORDS, said);
    assert.match(said, /thank you/i);
    const words = r.results.channels[0]!.alternatives![0]!.words!;
    assert.ok(words.some((w) => w.word === '[NUMBER_1]' && (w.end ?? 0) > (w.start ?? 0)));
  });

  test('redact=pci: a card number read digit by digit (Luhn-valid) becomes [CREDIT_CARD_1]; with smart_format too', async () => {
    for (const extra of [{}, { smart_format: true }]) {
      const r = (await client.listen.v1.media.transcribeFile(speech, {
        model: 'nova-3',
        redact: ['pci', 'ssn'],
        ...extra,
      } as never)) as Deepgram.ListenV1Response;
      const said = transcriptOf(r);
      assert.match(said, /\[CREDIT_CARD_1\]/, `${JSON.stringify(extra)}: ${said}`);
      assert.doesNotMatch(said, NUMBER_WORDS, said);
    }
  });

  test('nothing asked, nothing redacted: redact=false, profanity_filter=false', async () => {
    const r = (await client.listen.v1.media.transcribeFile(speech, {
      model: 'nova-3',
      redact: 'false',
      profanity_filter: false,
    } as never)) as Deepgram.ListenV1Response;
    assert.doesNotMatch(transcriptOf(r), /\[/);
  });
});

describe('WS /v1/listen', () => {
  test('redact=numbers with interim_results: finals redacted, no interim result sent', async () => {
    const socket = await client.listen.v1.connect({
      model: 'base',
      encoding: 'linear16',
      sample_rate: 16000,
      interim_results: 'true',
      redact: 'numbers',
      endpointing: 300,
    } as never);
    const messages: any[] = [];
    socket.on('message', (m) => messages.push(m));
    const closed = new Promise<number>((r) => socket.on('close', (e: any) => r(e.code)));
    socket.connect();
    await socket.waitForOpen();
    const pcm = float32ToInt16(decodeWav(speech).channels[0]!);
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    // 100 ms frames at real-time pace: interim results would come while it speaks.
    for (let i = 0; i < bytes.length; i += 3200) {
      socket.sendMedia(bytes.subarray(i, i + 3200));
      await new Promise((r) => setTimeout(r, 100));
    }
    socket.sendCloseStream({ type: 'CloseStream' });
    assert.equal(await closed, 1000);
    const results = messages.filter((m) => m.type === 'Results');
    assert.ok(results.length > 0);
    assert.ok(
      results.every((m) => m.is_final),
      'interim results withheld while redacting',
    );
    const said = results
      .map((m) => m.channel.alternatives[0].transcript)
      .filter(Boolean)
      .join(' ');
    assert.match(said, /\[NUMBER_\d\]/, said);
    assert.doesNotMatch(said, NUMBER_WORDS, said);
    for (const m of results) for (const w of m.channel.alternatives[0].words) assert.doesNotMatch(w.word, NUMBER_WORDS);
  });
});
