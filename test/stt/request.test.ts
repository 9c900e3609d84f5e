// Multipart fields of the batch endpoints (decisions #16), without the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSttFields } from '../../src/stt/request.js';
import { ApiError } from '../../src/errors.js';

const parse = (fields: Record<string, string>, endpoint: 'universal' | 'cipher' | 'lucid' = 'universal') =>
  parseSttFields(new Map(Object.entries(fields)), endpoint);
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? err.code : String(err);
  }
  return 'no error';
};

test('defaults: cipher-fast, json, smart format and punctuation on, no diarization', () => {
  assert.deepEqual(parse({}), {
    model: 'cipher-fast',
    language: undefined,
    responseFormat: 'json',
    prompt: undefined,
    granularities: [],
    diarize: false,
    smartFormat: true,
    punctuate: true,
    keywords: [],
    redaction: { redact: [], profanityFilter: false },
  });
});

test("engine endpoints ignore the other engine's fields; the universal endpoint reads them all", () => {
  const lucidOnCipher = parse({ diarize: 'nonsense', smart_format: 'false', keywords: 'Kubernetes' }, 'cipher');
  assert.deepEqual([lucidOnCipher.diarize, lucidOnCipher.smartFormat, lucidOnCipher.keywords], [false, true, []]);
  // response_format is read by every endpoint (decisions #16); the other Cipher fields are not.
  const cipherOnLucid = parse({ response_format: 'srt', timestamp_granularities: 'word' }, 'lucid');
  assert.deepEqual([cipherOnLucid.responseFormat, cipherOnLucid.granularities], ['srt', []]);
  assert.equal(
    code(() => parse({ response_format: 'docx' }, 'lucid')),
    'INVALID_FORMAT',
  );
  assert.equal(
    code(() => parse({ diarize: 'nonsense' })),
    'INVALID_PARAMETER',
  );
  assert.equal(
    code(() => parse({ response_format: 'docx' })),
    'INVALID_FORMAT',
  );
});

test('timestamp_granularities: word and/or segment, comma-separated or as a JSON list, only with verbose_json', () => {
  assert.deepEqual(parse({ response_format: 'verbose_json', timestamp_granularities: 'word,segment' }).granularities, ['word', 'segment']);
  assert.deepEqual(parse({ response_format: 'verbose_json', timestamp_granularities: '["word"]' }).granularities, ['word']);
  assert.equal(
    code(() => parse({ response_format: 'verbose_json', timestamp_granularities: 'letter' })),
    'INVALID_PARAMETER',
  );
  assert.equal(
    code(() => parse({ response_format: 'srt', timestamp_granularities: 'segment' })),
    'INVALID_PARAMETER',
  );
});

test('booleans accept true/false/1/0/yes/no', () => {
  assert.equal(parse({ diarize: 'TRUE' }).diarize, true);
  assert.equal(parse({ smart_format: '0', punctuate: 'no' }).smartFormat, false);
  assert.equal(parse({ punctuate: 'no' }).punctuate, false);
});

test("keywords (with optional :intensity) and the prompt's longer words are boosted", () => {
  assert.deepEqual(parse({ keywords: 'Kubernetes:2, Parla ,  , gRPC:-1.5' }).keywords, ['Kubernetes', 'Parla', 'gRPC']);
  assert.deepEqual(parse({ prompt: 'We run it on Kubernetes, in a pod.' }, 'cipher').keywords, ['Kubernetes']);
});

test('oversized fields are refused', () => {
  assert.equal(
    code(() => parse({ prompt: 'x'.repeat(4001) })),
    'INVALID_PARAMETER',
  );
});

test('redact and profanity_filter: on every endpoint; pci, ssn, numbers, true = numbers; hostile values refused by name', () => {
  for (const endpoint of ['universal', 'cipher', 'lucid'] as const) {
    assert.deepEqual(parse({ redact: 'pci, ssn', profanity_filter: 'true' }, endpoint).redaction, {
      redact: ['pci', 'ssn'],
      profanityFilter: true,
    });
  }
  assert.deepEqual(parse({ redact: '["numbers","pci"]' }).redaction?.redact, ['numbers', 'pci']);
  assert.deepEqual(parse({ redact: 'true,numbers' }).redaction?.redact, ['numbers']);
  assert.deepEqual(parse({ redact: 'false' }).redaction?.redact, []);
  for (const bad of <Array<Record<string, string>>>[
    { redact: 'pii' },
    { redact: '__proto__' },
    { redact: 'pci\u0000' },
    { redact: 'x'.repeat(4001) },
    { profanity_filter: 'maybe' },
  ]) {
    assert.equal(
      code(() => parse(bad)),
      'INVALID_PARAMETER',
      JSON.stringify(bad).slice(0, 60),
    );
  }
});
