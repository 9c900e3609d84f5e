// Deepgram's /v1/listen query -> Parla's options (src/compat/deepgram/listen-params.ts): the
// model table and its family rule, Deepgram's booleans and defaults, keywords with intensifiers,
// what is refused when turned on, and that every fault is a 400 naming its parameter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapDeepgramModel, parseListenParams, splitIntensifier } from '../../src/compat/deepgram/listen-params.js';
import { ApiError } from '../../src/errors.js';
import { loadConfig } from '../../src/config.js';
import { Deepgram, ListenV1Model } from '@deepgram/sdk';

const mapping = loadConfig({}).product.deepgram;
const parse = (qs: string, mode: 'prerecorded' | 'live' = 'prerecorded') => parseListenParams(new URLSearchParams(qs), mapping, mode);
const refused = (qs: string, field: string, code = 'INVALID_PARAMETER') =>
  assert.throws(
    () => parse(qs),
    (e: unknown) => e instanceof ApiError && e.code === code && e.status === 400 && e.details.field === field,
    qs,
  );

test('the shipped table maps every Deepgram prerecorded and live model id the SDK names to a Parla model', () => {
  // ListenV1Model's 'custom' stands for a customer's trained model id, which has no counterpart here.
  const ids = [...Object.values(Deepgram.listen.v1.MediaTranscribeRequestModel), ...Object.values(ListenV1Model)].filter(
    (id) => id !== 'custom',
  );
  assert.ok(ids.length >= 29);
  for (const id of ids) assert.match(mapDeepgramModel(id, mapping.sttModels), /^(cipher|lucid)-/, id);
});

test('model: exact entries, the longest family prefix, Parla ids as they are, anything else INVALID_MODEL', () => {
  assert.equal(mapDeepgramModel('nova-3', mapping.sttModels), 'cipher-max');
  assert.equal(mapDeepgramModel('base', mapping.sttModels), 'cipher-fast');
  assert.equal(mapDeepgramModel('nova-2-meeting', mapping.sttModels), 'cipher-max');
  assert.equal(mapDeepgramModel('whisper-tiny', mapping.sttModels), 'cipher-fast');
  // whisper-base-v2 -> the longest prefix "whisper-base", not "whisper" or "base".
  assert.equal(mapDeepgramModel('whisper-base-v2', mapping.sttModels), 'cipher-fast');
  assert.equal(mapDeepgramModel('whisper-large-v3', mapping.sttModels), 'cipher-max');
  assert.equal(mapDeepgramModel('lucid-mono', mapping.sttModels), 'lucid-mono');
  for (const bad of ['nova3', 'nova-', 'novaX', 'nova-3\u0000', 'nova-2 meeting', 'toString', '__proto__', 'constructor', '']) {
    assert.throws(
      () => mapDeepgramModel(bad, mapping.sttModels),
      (e: unknown) => e instanceof ApiError && e.code === 'INVALID_MODEL',
      bad,
    );
  }
  // An operator's table wins over the shipped one.
  assert.equal(mapDeepgramModel('nova-3-general', { 'nova-3': 'lucid-mono' }), 'lucid-mono');
});

test("defaults are Deepgram's: base model, English, no punctuation or formatting", () => {
  const p = parse('');
  assert.equal(p.requestedModel, 'base');
  assert.equal(p.model, 'cipher-fast');
  assert.equal(p.language, 'en');
  assert.equal(p.detectLanguage, false);
  assert.equal(p.punctuate, false);
  assert.equal(p.smartFormat, false);
  assert.equal(p.diarize, false);
  assert.equal(p.utterances, false);
  assert.equal(p.uttSplit, 0.8);
  assert.deepEqual(p.keywords, []);
});

test('booleans: true/false in any case; smart_format implies punctuation and paragraphs; numerals turns on number formatting', () => {
  assert.equal(parse('punctuate=TRUE').punctuate, true);
  assert.equal(parse('punctuate=false').punctuate, false);
  const sf = parse('smart_format=true');
  assert.deepEqual([sf.smartFormat, sf.punctuate, sf.paragraphs], [true, true, true]);
  const num = parse('numerals=true');
  assert.deepEqual([num.smartFormat, num.punctuate], [true, false]);
  assert.equal(parse('diarize=true').diarize, true);
  assert.equal(parse('diarize_model=latest').diarize, true);
  assert.equal(parse('utterances=true&utt_split=1.5').uttSplit, 1.5);
  for (const bad of ['punctuate=yes', 'punctuate=1', 'punctuate=', 'diarize=tru', 'utterances=%00', 'smart_format=true&smart_format=false'])
    refused(bad, bad.split('=')[0]!);
  refused('utt_split=-1', 'utt_split');
  refused('utt_split=abc', 'utt_split');
  refused('sample_rate=12.5', 'sample_rate');
});

test('language: as given, multi or detect_language -> detection', () => {
  assert.equal(parse('language=en-US').language, 'en-US');
  const multi = parse('language=multi');
  assert.deepEqual([multi.language, multi.detectLanguage], [undefined, true]);
  const detect = parse('detect_language=true&language=de');
  assert.deepEqual([detect.language, detect.detectLanguage], [undefined, true]);
  assert.equal(parse('detect_language=false&language=de').language, 'de');
});

test('keywords keep the word (a negative intensifier asks to suppress: left out); keyterm is a literal phrase', () => {
  const p = parse('keywords=Parla:2&keywords=snuffle:-5&keywords=zebra&keyterm=customer%20service&keyterm=a:b');
  assert.deepEqual(p.keywords, ['Parla', 'zebra', 'customer service', 'a:b']);
  assert.deepEqual(splitIntensifier('x:1.5'), ['x', 1.5]);
  assert.deepEqual(splitIntensifier('12:30'), ['12', 30]);
  assert.deepEqual(splitIntensifier('http://x'), ['http://x', 1]);
  refused(Array.from({ length: 101 }, (_, i) => `keyterm=t${i}`).join('&'), 'keywords');
});

test('features Parla lacks are refused when turned on, accepted when off; unknown parameters are ignored', () => {
  for (const f of [
    'sentiment=true',
    'summarize=v2',
    'redact=pii',
    'redact=phi',
    'redact=__proto__',
    'search=hello',
    'profanity_filter=yes',
    'multichannel=true',
    'topics=true',
  ])
    refused(f, f.split('=')[0]!);
  // redact: pci, ssn, numbers (true and aggressive_numbers are numbers), repeated or comma-separated; false is off.
  assert.deepEqual(parse('redact=pci&redact=ssn,numbers&redact=true').redaction, {
    redact: ['pci', 'ssn', 'numbers'],
    profanityFilter: false,
  });
  assert.deepEqual(parse('redact=false&profanity_filter=true').redaction, { redact: [], profanityFilter: true });
  assert.doesNotThrow(() => parse('sentiment=false&multichannel=false&redact=false&tier=nova&version=latest&mip_opt_out=true&whatever=1'));
  assert.deepEqual(parse('tag=a&tag=b').tags, ['a', 'b']);
  assert.equal(parse('callback=https://example.com/cb').callback, 'https://example.com/cb');
  // callback_method: post (the default) or put, any case, as the SDK sends it ("PUT").
  assert.equal(parse('callback=https://example.com/cb').callbackMethod, 'POST');
  assert.equal(parse('callback_method=put').callbackMethod, 'PUT');
  assert.equal(parse('callback_method=PUT').callbackMethod, 'PUT');
  for (const m of ['get', 'delete', '', '%00', 'post&callback_method=put'])
    if (m !== '') refused(`callback_method=${m}`, 'callback_method');
  refused(`model=${'x'.repeat(2001)}`, 'model');
});

test('live parameters are read in live mode only', () => {
  const live = parse(
    'interim_results=true&endpointing=300&utterance_end_ms=1000&vad_events=true&encoding=linear16&sample_rate=16000&channels=1',
    'live',
  );
  assert.deepEqual(
    [live.interimResults, live.endpointing, live.utteranceEndMs, live.vadEvents, live.encoding, live.sampleRate, live.channels],
    [true, 300, 1000, true, 'linear16', 16000, 1],
  );
  assert.equal(parse('endpointing=false', 'live').endpointing, 0);
  const pre = parse('interim_results=true&endpointing=300');
  assert.deepEqual([pre.interimResults, pre.endpointing], [false, 10]);
});
