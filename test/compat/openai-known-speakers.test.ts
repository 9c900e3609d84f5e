// OpenAI's known_speaker_names[] / known_speaker_references[] through the official `openai` package
// (unchanged but for baseURL and apiKey), decision #50: a conversation of two of Parla's own voices
// (spoken by the service itself through the SDK), references from other sentences of the same
// voices as data URLs, and diarized_json segments that must carry the right names; a voice with no
// reference keeps a letter; every fault of the fields is a BadRequestError naming the field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { espeak, soxConcat } from '../helpers/speech.js';

let t: TestApp;
let client: OpenAI;
let accountId: string;
const dir = mkdtempSync(path.join(tmpdir(), 'parla-known-'));
let n = 0;

const TURNS = [
  'Good morning, thank you for calling. How can I help you today?',
  'Hello, my internet connection keeps dropping every evening.',
  'I am sorry to hear that. Let me check the line for you.',
  'Thank you, it started last week after the storm.',
];
const REFERENCE = 'The weather report says it will rain tomorrow afternoon, so bring an umbrella.';

/** A WAV of `text` in an OpenAI voice, spoken by the service (as the client would get it). */
async function say(voice: 'alloy' | 'onyx', text: string): Promise<string> {
  const res = await client.audio.speech.create({ model: 'tts-1', voice, input: text, response_format: 'wav' });
  const file = path.join(dir, `s${n++}.wav`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

/** `file` as 16 kHz mono 16-bit (what soxConcat joins). */
function mono16k(file: string): string {
  const out = path.join(dir, `m${n++}.wav`);
  execFileSync('sox', [file, '-r', '16000', '-c', '1', '-b', '16', out]);
  return out;
}

const seconds = (file: string) => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }).trim());
const dataUrl = (file: string, type = 'audio/wav') => `data:${type};base64,${readFileSync(file).toString('base64')}`;

const badRequest = (param: string) => (err: unknown) => {
  assert.ok(err instanceof OpenAI.BadRequestError, String(err));
  assert.equal((err.error as { param?: string }).param, param, JSON.stringify(err.error));
  return true;
};

let conversation: string;
/** Who speaks when in the conversation: [start, end, voice]. */
const turns: Array<[number, number, string]> = [];
const refs: Record<string, string> = {};

before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const baseURL = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
  let apiKey: string;
  ({ apiKey, accountId } = await createTestAccount(t.services, { plan: 'pro', credits: 1_000_000 }));
  client = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  const voices = ['alloy', 'onyx', 'alloy', 'onyx'] as const;
  const files: string[] = [];
  let at = 0;
  for (const [k, line] of TURNS.entries()) {
    const f = mono16k(await say(voices[k]!, line));
    files.push(f);
    turns.push([at, at + seconds(f), voices[k]!]);
    at += seconds(f) + 0.8;
  }
  conversation = soxConcat(files, 0.8);
  // The references as the service spoke them (24 kHz WAV), other sentences than the conversation's.
  for (const v of ['alloy', 'onyx'] as const) refs[v] = await say(v, REFERENCE);
});

after(async () => {
  await t?.close();
});

/** The voice speaking at the middle of a segment. */
const voiceAt = (s: { start: number; end: number }) =>
  turns.find(([a, b]) => (s.start + s.end) / 2 >= a - 0.3 && (s.start + s.end) / 2 <= b + 0.3)?.[2];

async function diarize(names: string[], references: string[]) {
  return (await client.audio.transcriptions.create({
    file: createReadStream(conversation),
    model: 'gpt-4o-transcribe-diarize',
    response_format: 'diarized_json',
    known_speaker_names: names,
    known_speaker_references: references,
  })) as unknown as OpenAI.Audio.TranscriptionDiarized;
}

describe('known speakers through the SDK', () => {
  test('each segment carries the name of the voice that said it, whatever the order of the references', async () => {
    for (const [s, r] of Object.entries(refs)) assert.ok(seconds(r) >= 2 && seconds(r) <= 10, `${s}: ${seconds(r)} s`);
    for (const order of [
      ['alloy', 'onyx'],
      ['onyx', 'alloy'],
    ]) {
      const names = order.map((v) => (v === 'alloy' ? 'agent' : 'customer'));
      const r = await diarize(
        names,
        order.map((v) => dataUrl(refs[v]!)),
      );
      assert.ok(r.segments.length >= 4, JSON.stringify(r.segments));
      for (const s of r.segments) {
        assert.equal(s.type, 'transcript.text.segment');
        assert.equal(
          s.speaker,
          voiceAt(s) === 'alloy' ? 'agent' : 'customer',
          `${order}: ${JSON.stringify(s)} in ${JSON.stringify(turns)}`,
        );
      }
    }
  });

  test('a voice with no reference keeps a letter; a reference of a voice not heard names nobody', async () => {
    // The voice not heard is eSpeak NG's en-us+f3, far from both in the built-in features: voices
    // closer than the merge threshold (another male Flite voice to onyx, sage to alloy) are one
    // speaker to them, and such a reference would name the wrong voice (docs/stt.md).
    const r = await diarize(['narrator', 'agent'], [dataUrl(espeak(REFERENCE, 'en-us+f3')), dataUrl(refs.alloy!)]);
    for (const s of r.segments) assert.equal(s.speaker, voiceAt(s) === 'alloy' ? 'agent' : 'A', JSON.stringify(s));
  });

  test('references in other formats (MP3 data URL, 10 s of 48 kHz stereo WAV) are decoded and matched', async () => {
    const mp3 = path.join(dir, `r${n++}.mp3`);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', refs.onyx!, '-b:a', '64k', mp3]);
    // The largest ordinary reference: 10 s of 48 kHz stereo 16-bit PCM (1.9 MB, 2.6 MB as a data URL).
    const big = path.join(dir, `r${n++}.wav`);
    execFileSync('sox', [refs.alloy!, refs.alloy!, refs.alloy!, '-r', '48000', '-c', '2', '-b', '16', big, 'trim', '0', '10']);
    const r = await diarize(['agent', 'customer'], [dataUrl(big), dataUrl(mp3, 'audio/mpeg')]);
    for (const s of r.segments) assert.equal(s.speaker, voiceAt(s) === 'alloy' ? 'agent' : 'customer', JSON.stringify(s));
  });

  test('stream=true: the segment events carry the names', async () => {
    const stream = await client.audio.transcriptions.create({
      file: createReadStream(conversation),
      model: 'gpt-4o-transcribe-diarize',
      response_format: 'diarized_json',
      known_speaker_names: ['agent', 'customer'],
      known_speaker_references: [dataUrl(refs.alloy!), dataUrl(refs.onyx!)],
      stream: true,
    });
    const speakers = new Set<string>();
    for await (const ev of stream) if (ev.type === 'transcript.text.segment') speakers.add(ev.speaker);
    assert.deepEqual([...speakers].sort(), ['agent', 'customer']);
  });
});

describe('refusals by name', () => {
  test('counts, names, data URLs, lengths and formats: BadRequestError naming the field, nothing billed', async () => {
    const before = await t.services.store.getBalance(accountId, 'live');
    const good = dataUrl(refs.alloy!);
    const create = (extra: Record<string, unknown>) =>
      client.audio.transcriptions.create({
        file: createReadStream(conversation),
        model: 'gpt-4o-transcribe-diarize',
        response_format: 'diarized_json',
        ...extra,
      } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming);
    const short = path.join(dir, `r${n++}.wav`);
    execFileSync('sox', [refs.alloy!, short, 'trim', '0', '1.5']);
    const long = path.join(dir, `r${n++}.wav`);
    execFileSync('sox', [refs.alloy!, refs.alloy!, refs.alloy!, refs.alloy!, long, 'trim', '0', '11']);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ known_speaker_names: ['agent'] }, 'known_speaker_references'],
      [{ known_speaker_references: [good] }, 'known_speaker_names'],
      [{ known_speaker_names: ['agent', 'customer'], known_speaker_references: [good] }, 'known_speaker_references'],
      [{ known_speaker_names: ['a', 'b', 'c', 'd', 'e'], known_speaker_references: [good, good, good, good, good] }, 'known_speaker_names'],
      [{ known_speaker_names: ['agent', 'agent'], known_speaker_references: [good, good] }, 'known_speaker_names'],
      [{ known_speaker_names: [' '], known_speaker_references: [good] }, 'known_speaker_names'],
      [{ known_speaker_names: ['x'.repeat(65)], known_speaker_references: [good] }, 'known_speaker_names'],
      [{ known_speaker_names: ['agent'], known_speaker_references: [good], response_format: 'json' }, 'known_speaker_names'],
      [{ known_speaker_names: ['agent'], known_speaker_references: ['https://example.com/agent.wav'] }, 'known_speaker_references'],
      [{ known_speaker_names: ['agent'], known_speaker_references: ['data:audio/wav,RIFF'] }, 'known_speaker_references'],
      [{ known_speaker_names: ['agent'], known_speaker_references: ['data:text/html;base64,PGgxPg=='] }, 'known_speaker_references'],
      [{ known_speaker_names: ['agent'], known_speaker_references: ['data:audio/wav;base64,not base64!'] }, 'known_speaker_references'],
      [
        {
          known_speaker_names: ['agent'],
          known_speaker_references: [`data:audio/wav;base64,${Buffer.from('not audio at all, only words').toString('base64')}`],
        },
        'known_speaker_references',
      ],
      [{ known_speaker_names: ['agent'], known_speaker_references: [dataUrl(short)] }, 'known_speaker_references'],
      [{ known_speaker_names: ['agent'], known_speaker_references: [dataUrl(long)] }, 'known_speaker_references'],
      // Over the reference's byte cap (10 s of 48 kHz stereo WAV): refused while reading the body.
      [
        { known_speaker_names: ['agent'], known_speaker_references: [`data:audio/wav;base64,${'A'.repeat(2_700_000)}`] },
        'known_speaker_references',
      ],
      // Only the references may pass 16 KiB: any other field that long is refused by name.
      [{ known_speaker_names: ['x'.repeat(20_000)], known_speaker_references: [good] }, 'known_speaker_names'],
    ];
    for (const [extra, param] of cases) await assert.rejects(create(extra), badRequest(param), JSON.stringify(extra).slice(0, 200));
    assert.equal(await t.services.store.getBalance(accountId, 'live'), before);
  });
});
