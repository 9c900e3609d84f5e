// The two small parts of Deepgram's live socket without a socket: the live parameters over the
// shared listen parser (Deepgram's defaults, what a stream refuses) and the renderer of the
// session's events (which events Deepgram's client asked for, every close frame, the error body,
// the closing Metadata).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { expandG711 } from '../../src/audio/g711-decode.js';
import { sniffContainer } from '../../src/stt/live/opus-decoder.js';
import { parseDeepgramLiveParams } from '../../src/compat/deepgram/live-params.js';
import { ListenOutput } from '../../src/compat/deepgram/listen-output.js';
import { parseRealtimeParams } from '../../src/realtime/params.js';
import type { SessionEnd } from '../../src/stt/live/session-output.js';
import { ApiError } from '../../src/errors.js';
import { testConfig } from '../helpers/env.js';

const mapping = testConfig().product.deepgram;
const parse = (query: string) => parseDeepgramLiveParams(new URLSearchParams(query), mapping);
const refusal = (query: string): ApiError => {
  try {
    parse(query);
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
  assert.fail(`${query} was accepted`);
};

test("live parameters: Deepgram's defaults, not the native socket's", () => {
  const p = parse('model=nova-3');
  assert.equal(p.session.model, 'cipher-max');
  assert.equal(p.requestedModel, 'nova-3');
  // No encoding: a container, told from the first bytes (decision #43); no redaction unless asked.
  assert.equal(p.session.encoding, 'container');
  assert.deepEqual(p.redaction, { redact: [], profanityFilter: false });
  assert.equal(p.session.interimResults, false);
  assert.equal(p.session.endpointing, 10);
  assert.equal(p.session.punctuate, false);
  assert.equal(p.session.smartFormat, false);
  assert.equal(p.vadEvents, false);
  assert.equal(p.utteranceEnd, false);
  // The native socket's defaults differ (interim results and punctuation on).
  const native = parseRealtimeParams(new URLSearchParams());
  assert.equal(native.interimResults, true);
  assert.equal(native.punctuate, true);
});

test('live parameters: what the client asks for', () => {
  const p = parse(
    'model=base&encoding=linear16&sample_rate=48000&channels=1&interim_results=true&endpointing=false&utterance_end_ms=1500&vad_events=true&smart_format=true&keywords=Parla:2&keyterm=quarterly%20report',
  );
  assert.equal(p.session.model, 'cipher-fast');
  assert.equal(p.session.sampleRate, 48000);
  assert.equal(p.session.interimResults, true);
  assert.equal(p.session.endpointing, 0);
  assert.equal(p.session.utteranceEndMs, 1500);
  assert.equal(p.utteranceEnd, true);
  assert.equal(p.vadEvents, true);
  assert.equal(p.session.punctuate, true, 'smart_format punctuates too');
  assert.deepEqual(p.session.keywords, ['Parla', 'quarterly report']);
  assert.equal(parse('encoding=opus').session.encoding, 'opus');
  assert.equal(parse('encoding=ogg-opus').session.encoding, 'opus');
  assert.equal(parse('endpointing=300').session.endpointing, 300);
  // Telephone audio: expanded to linear16 by the edge, 8 kHz unless told.
  const phone = parse('encoding=mulaw');
  assert.deepEqual([phone.expand, phone.session.encoding, phone.session.sampleRate], ['mulaw', 'linear16', 8000]);
  assert.deepEqual(
    [parse('encoding=alaw&sample_rate=16000').expand, parse('encoding=alaw&sample_rate=16000').session.sampleRate],
    ['alaw', 16000],
  );
  assert.equal(parse('encoding=linear16').expand, null);
});

test("G.711 expansion is the reference decoder's, for every byte (checked against sox)", () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  for (const [law, soxName] of [
    ['mulaw', 'u-law'],
    ['alaw', 'a-law'],
  ] as const) {
    const reference = execFileSync(
      'sox',
      ['-t', 'raw', '-e', soxName, '-b', '8', '-r', '8000', '-c', '1', '-', '-t', 'raw', '-e', 'signed', '-b', '16', '-L', '-'],
      { input: all },
    );
    assert.deepEqual(expandG711(all, law), reference, law);
  }
});

test('live parameters: what a stream cannot carry is a 400 naming the field', () => {
  for (const [query, field] of [
    ['encoding=amr-nb', 'encoding'],
    ['encoding=speex', 'encoding'],
    ['encoding=constructor', 'encoding'],
    ['sample_rate=96000', 'sample_rate'],
    ['channels=2', 'channels'],
    ['multichannel=true', 'multichannel'],
    ['diarize=true', 'diarize'],
    ['callback=https%3A%2F%2Fexample.com', 'callback'],
    ['model=gpt-4o', 'model'],
    ['interim_results=yes', 'interim_results'],
  ] as const) {
    const err = refusal(query);
    assert.equal(err.status, 400, query);
    assert.equal(err.details?.field, field, query);
  }
  const badTable = { ...mapping, sttModels: { ...mapping.sttModels, odd: 'aura-lite' } };
  assert.throws(
    () => parseDeepgramLiveParams(new URLSearchParams('model=odd'), badTable),
    (e: unknown) => e instanceof ApiError && e.code === 'INVALID_MODEL',
  );
});

function recorder() {
  const sent: any[] = [];
  const closes: Array<[number, string]> = [];
  return {
    sent,
    closes,
    t: {
      send: (m: Record<string, unknown>) => sent.push(m),
      close: (c: number, r: string) => closes.push([c, r]),
      pause() {},
      resume() {},
    },
  };
}

const info = { requestId: 'req_0123', params: parse('model=base').session, language: 'en', engine: 'pocketsphinx' };

test("renderer: nothing at open; SpeechStarted and UtteranceEnd only when asked; Results in Deepgram's shape", () => {
  const quiet = recorder();
  const q = new ListenOutput(quiet.t, { vadEvents: false, utteranceEnd: false });
  q.opened(info);
  q.speechStarted(0.2);
  q.utteranceEnd(1.5);
  assert.deepEqual(quiet.sent, []);

  const r = recorder();
  const o = new ListenOutput(r.t, { vadEvents: true, utteranceEnd: true });
  o.opened(info);
  o.speechStarted(0.2);
  o.results({
    start: 0.2,
    duration: 1,
    isFinal: true,
    speechFinal: false,
    fromFinalize: true,
    transcript: 'hello',
    confidence: 0.9,
    words: [{ word: 'hello', start: 0.2, end: 1.2, confidence: 0.9, punctuated_word: 'Hello' }],
  });
  o.utteranceEnd(1.2);
  assert.deepEqual(r.sent[0], { type: 'SpeechStarted', channel: [0, 1], timestamp: 0.2 });
  const res = r.sent[1];
  assert.deepEqual(Object.keys(res), [
    'type',
    'channel_index',
    'duration',
    'start',
    'is_final',
    'speech_final',
    'channel',
    'metadata',
    'from_finalize',
  ]);
  assert.deepEqual(res.metadata.model_info, { name: 'cipher-fast', version: res.metadata.model_info.version, arch: 'pocketsphinx' });
  assert.equal(res.metadata.request_id, 'req_0123');
  assert.equal(res.from_finalize, true);
  assert.deepEqual(r.sent[2], { type: 'UtteranceEnd', channel: [0, 1], last_word_end: 1.2 });
});

test("renderer: errors in Deepgram's body, the closing Metadata, a close frame for every way a stream ends", () => {
  const r = recorder();
  const o = new ListenOutput(r.t, { vadEvents: false, utteranceEnd: false });
  o.opened(info);
  o.error('INVALID_REQUEST', 'bad control message');
  assert.deepEqual(r.sent[0], {
    type: 'Error',
    err_code: 'Bad Request',
    err_msg: 'bad control message',
    request_id: 'req_0123',
    parla_code: 'INVALID_REQUEST',
  });
  o.error('INSUFFICIENT_CREDITS', 'out');
  assert.equal(r.sent[1].err_code, 'ASR_PAYMENT_REQUIRED');
  o.audioReceived(Buffer.from([1, 2]));
  o.audioReceived(Buffer.from([3]));
  o.summary({ duration: 1.25, billedSeconds: 2, credits: 4, utterances: 1 });
  const meta = r.sent[2];
  assert.equal(meta.type, 'Metadata');
  assert.equal(
    meta.sha256,
    createHash('sha256')
      .update(Buffer.from([1, 2, 3]))
      .digest('hex'),
  );
  assert.equal(meta.duration, 1.25);
  assert.deepEqual(Object.keys(meta.model_info), meta.models);
  // Audio after the closing Metadata (a client still flushing its microphone during the close
  // handshake) is ignored: it used to reach the finished Hash and end the process (issue 30).
  assert.doesNotThrow(() => o.audioReceived(Buffer.from([4, 5])));
  o.summary({ duration: 1.25, billedSeconds: 2, credits: 4, utterances: 1 });
  assert.equal(r.sent[3].sha256, meta.sha256, 'a second summary tells the same digest');

  const expected: Record<SessionEnd, [number, RegExp]> = {
    client_closed: [1000, /^$/],
    shutdown: [1001, /./],
    idle_timeout: [1011, /^NET-0001/],
    invalid_audio: [1008, /^DATA-0000/],
    internal_error: [1011, /^INTERNAL_SERVER_ERROR/],
    insufficient_credits: [1008, /^ASR_PAYMENT_REQUIRED/],
    max_duration: [1008, /^MAX_DURATION/],
    overloaded: [1013, /^SERVICE_OVERLOADED/],
  };
  for (const [why, [code, reason]] of Object.entries(expected) as Array<[SessionEnd, [number, RegExp]]>) {
    const c = recorder();
    new ListenOutput(c.t, { vadEvents: false, utteranceEnd: false }).close(why);
    assert.equal(c.closes[0]![0], code, why);
    assert.match(c.closes[0]![1], reason, why);
    assert.ok(Buffer.byteLength(c.closes[0]![1]) <= 123, `${why}: a close reason is at most 123 bytes`);
  }
});

test('container sniffing: each signature, RIFF only with WAVE, MP3 by ID3 or a valid frame header, raw PCM none', () => {
  const cases: Array<[number[] | string, string | null]> = [
    ['OggS\u0000\u0002', 'ogg'],
    [[0x1a, 0x45, 0xdf, 0xa3, 0x9f], 'webm'],
    ['fLaC\u0000', 'flac'],
    ['RIFF\u0000\u0000\u0000\u0000WAVE', 'wav'],
    ['RF64\u00ff\u00ff\u00ff\u00ffWAVE', 'wav'],
    ['RIFF\u0000\u0000\u0000\u0000AVI ', null],
    ['ID3\u0004', 'mp3'],
    [[0xff, 0xfb, 0x90, 0x64], 'mp3'],
    // Frame sync with a reserved version, a bad bitrate, or a reserved rate: not MP3.
    [[0xff, 0xeb, 0x90, 0x64], null],
    [[0xff, 0xfb, 0xf0, 0x64], null],
    [[0xff, 0xfb, 0x9c, 0x64], null],
    // Raw 16-bit PCM: silence, a quiet ramp.
    [[0, 0, 0, 0, 1, 0, 2, 0], null],
    [[0xff, 0xff, 0xfe, 0xff], null],
    ['Ogg', null],
  ];
  for (const [head, want] of cases) {
    const buf = typeof head === 'string' ? Buffer.from(head, 'latin1') : Buffer.from(head);
    assert.equal(sniffContainer(buf), want, JSON.stringify(head));
  }
});
