// The speaker rule of neural voices (src/engines/sherpa/speakers.ts): the operator's speakers.txt
// (malformed lines skipped, never thrown), Kokoro's speaker_names, and the mapping of an Aura voice
// (gender, slot) to a speaker, stable and gender-preserving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kokoroSpeakers, parseNeuralVoiceKey, parseSpeakersFile, speakerFor } from '../../src/engines/sherpa/speakers.js';

test('speakers.txt: "ID GENDER [NAME]" lines, comments and junk skipped, sorted by id', () => {
  const text = [
    '# the voices',
    '3 male bob',
    '1 female',
    '2 other x',
    'x female',
    '-1 male',
    '99999999 female',
    '',
    '0 female amy # the first',
    '\u0000\u0000',
    ' 4   male  ',
  ].join('\n');
  assert.deepEqual(parseSpeakersFile(text), [
    { id: 0, name: 'amy', gender: 'female' },
    { id: 1, name: '1', gender: 'female' },
    { id: 3, name: 'bob', gender: 'male' },
    { id: 4, name: '4', gender: 'male' },
  ]);
  // Long hostile input parses in linear time and yields nothing.
  assert.deepEqual(parseSpeakersFile('0 '.repeat(200_000)), []);
});

test("Kokoro's speaker_names give gender and accent; names that say neither are left out", () => {
  const s = kokoroSpeakers('af,af_bella,am_adam,bf_emma,bm_george,zz_odd,');
  assert.deepEqual(
    s.map((x) => [x.id, x.gender, x.accent ?? null]),
    [
      [0, 'female', 'en-US'],
      [1, 'female', 'en-US'],
      [2, 'male', 'en-US'],
      [3, 'female', 'en-GB'],
      [4, 'male', 'en-GB'],
    ],
  );
});

test('an Aura voice maps to a speaker of its gender, its accent first, slot modulo; none of its gender: none', () => {
  const s = kokoroSpeakers('af,af_bella,am_adam,bf_emma,bm_george');
  for (let slot = 0; slot < 15; slot++) {
    assert.equal(speakerFor(s, 'female', slot, 'en-US')!.gender, 'female');
    assert.equal(speakerFor(s, 'male', slot, 'en-US')!.gender, 'male');
    assert.equal(speakerFor(s, 'female', slot, 'en-GB')!.name, 'bf_emma');
  }
  assert.equal(speakerFor(s, 'female', 1, 'en-US')!.name, 'af_bella');
  assert.equal(speakerFor(s, 'female', 1, 'en-AU')!.name, 'af_bella', 'no speaker of that accent: all of the gender');
  assert.equal(speakerFor([{ id: 0, name: 'amy', gender: 'female' }], 'male', 0, 'en-US'), undefined);
  assert.deepEqual(parseNeuralVoiceKey('female:7'), { gender: 'female', slot: 7 });
  for (const bad of [undefined, '', 'female', 'female:', ':3', 'female:-1', 'female:x', 'female:1.5'])
    assert.equal(parseNeuralVoiceKey(bad), null, String(bad));
});
