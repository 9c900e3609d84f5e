// The OpenAI dialect's ids, voices and input, through the official `openai` package (issue 28,
// items 1, 3, 6; issue 30, item 9): plain text with angle brackets is spoken, never refused; every
// OpenAI TTS id maps to the best model the key's plan includes, and an error names the id sent;
// dated snapshots and the newer transcription ids are known; every voice of the SDK's own union is
// taken; prototype keys ("constructor", "__proto__") are ordinary unknown names (400), never a 500.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { silenceWav } from '../hostile/builders.js';

let t: TestApp;
let baseURL: string;
const clients: Record<string, OpenAI> = {};

/** A client of a new account: the free plan allows 10 requests a minute, each account its own. */
async function fresh(plan: 'free' | 'basic' | 'pro'): Promise<OpenAI> {
  const { apiKey } = await createTestAccount(t.services, { plan, credits: 1_000_000 });
  return new OpenAI({ apiKey, baseURL, maxRetries: 0 });
}

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseURL = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
  for (const plan of ['free', 'basic', 'pro'] as const) {
    const { apiKey } = await createTestAccount(t.services, { plan, credits: 1_000_000 });
    clients[plan] = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  }
  await t.services.registry.whenReady();
});
after(() => t.close());

function wavSeconds(b: Buffer): number {
  assert.equal(b.toString('ascii', 0, 4), 'RIFF');
  return (b.length - 44) / b.readUInt32LE(24) / (b.readUInt16LE(34) / 8);
}

async function speak(client: OpenAI, body: { model: string; voice: string; input: string }) {
  const res = await client.audio.speech.create({ ...body, voice: body.voice as 'alloy', response_format: 'wav' }).asResponse();
  const audio = Buffer.from(await res.arrayBuffer());
  return { seconds: wavSeconds(audio), credits: Number(res.headers.get('x-credits-used')), model: res.headers.get('x-parla-model') };
}

test('angle brackets are plain text: "a<b" is spoken with its symbols read, tags dropped, billed as sent', async () => {
  const c = clients.pro!;
  const compare = 'Compare a<b and c>d.';
  const said = await speak(c, { model: 'tts-1', voice: 'alloy', input: compare });
  const bare = await speak(c, { model: 'tts-1', voice: 'alloy', input: 'Compare a b and c d.' });
  // "less than" and "greater than" are spoken: clearly longer than the letters alone.
  assert.ok(said.seconds > bare.seconds + 0.5, `${said.seconds} s vs ${bare.seconds} s`);
  assert.equal(said.credits, [...compare].length);
  // A tag is formatting: dropped, its content spoken (as long as the text without it).
  const tagged = await speak(c, { model: 'tts-1', voice: 'alloy', input: 'Use the <b>bold</b> <div> element here.' });
  const plain = await speak(c, { model: 'tts-1', voice: 'alloy', input: 'Use the bold element here.' });
  assert.ok(Math.abs(tagged.seconds - plain.seconds) < 0.3, `${tagged.seconds} s vs ${plain.seconds} s`);
  // What agents pipe from a model: think tags, SSML, Parla's own tags (not read on this door), lone symbols.
  for (const input of [
    '<think>Let me see.</think>The answer is 4.',
    '<speak>Hello <break time="1s"/> there.</speak>',
    '<laugh> ok',
    '<whisper>unclosed',
    '1 < 2 > 0',
    '<<<>>>',
    '<think></think>',
    '<a b="1" <c'.repeat(20),
  ]) {
    const r = await speak(c, { model: 'tts-1', voice: 'coral', input });
    assert.ok(r.seconds > 0.1, input);
  }
});

test('every OpenAI TTS id is spoken with the best model the plan includes; the native ids keep the plan check', async () => {
  for (const [plan, best] of [
    ['free', 'aura-prime'],
    ['basic', 'aura-prime'],
    ['pro', 'aura-max'],
  ] as const) {
    const client = await fresh(plan);
    for (const model of ['tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-12-15', 'gpt-4o-mini-tts-2025-03-20', 'tts-1-hd-1106']) {
      const r = await speak(client, { model, voice: 'alloy', input: 'Hi.' });
      assert.equal(r.model, best, `${plan} ${model}`);
    }
    assert.equal((await speak(client, { model: 'tts-1', voice: 'alloy', input: 'Hi.' })).model, 'aura-prime');
  }
  // A Parla id is taken as asked: the plan check names it.
  await assert.rejects((await fresh('free')).audio.speech.create({ model: 'aura-max', voice: 'alloy', input: 'Hi.' }), (err: unknown) => {
    assert.ok(err instanceof OpenAI.PermissionDeniedError);
    assert.match(err.message, /aura-max/);
    return true;
  });
});

test('voices: every voice of the SDK union (marin and cedar too) speaks', async () => {
  // openai's SpeechCreateParams['voice'] union (node_modules/openai/resources/audio/speech.d.ts).
  for (const voice of ['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const) {
    const r = await speak(await fresh('free'), { model: 'gpt-4o-mini-tts', voice, input: 'Hi.' });
    assert.ok(r.seconds > 0.1, voice);
  }
});

test('prototype keys are unknown names: 400 naming the field, never a 500 or source text', async () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    for (const body of [
      { model: 'tts-1', voice: name, input: 'Hi.' },
      { model: name, voice: 'alloy', input: 'Hi.' },
    ]) {
      await assert.rejects((await fresh('free')).audio.speech.create(body as never), (err: unknown) => {
        assert.ok(err instanceof OpenAI.BadRequestError, `${JSON.stringify(body)}: ${String(err)}`);
        assert.doesNotMatch(err.message, /function|native code/);
        assert.equal((err.error as { param?: string }).param, body.model === name ? 'model' : 'voice');
        return true;
      });
    }
    await assert.rejects(
      (await fresh('free')).audio.transcriptions.create({ model: name, file: await toFile(silenceWav(0.3), 'a.wav') }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.BadRequestError, `${name}: ${String(err)}`);
        assert.doesNotMatch(err.message, /function|native code/);
        return true;
      },
    );
  }
});

test('transcription ids: snapshots, gpt-transcribe, gpt-live-transcribe, gpt-4o-transcribe-diarize are known', async () => {
  for (const model of [
    'whisper-1',
    'gpt-4o-transcribe',
    'gpt-4o-mini-transcribe',
    'gpt-4o-mini-transcribe-2025-12-15',
    'gpt-4o-transcribe-2025-03-20',
    'gpt-transcribe',
    'gpt-live-transcribe',
    'gpt-4o-transcribe-diarize',
  ]) {
    const r = await (await fresh('free')).audio.transcriptions.create({ model, file: await toFile(silenceWav(0.5), 'a.wav') });
    assert.equal(typeof r.text, 'string', model);
  }
  await assert.rejects(
    clients.free!.audio.transcriptions.create({ model: 'gpt-4o-mini-tts', file: await toFile(silenceWav(0.5), 'a.wav') }),
    OpenAI.BadRequestError,
  );
});
