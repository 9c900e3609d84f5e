// Endpointing of a live stream alone (src/stt/live/endpointing.ts): frame decisions in, what is due
// out, with no recognizer and no VAD (the decisions are written out here as the VAD would give them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Endpointer, INTERIM_EVERY_SECONDS, INTERIM_FIRST_SECONDS } from '../../../src/stt/live/endpointing.js';
import { ONSET_FRAMES } from '../../../src/stt/live/speech-onset.js';

const FRAME = 0.02;
const frames = (n: number, speech: boolean) => Array.from({ length: n }, () => speech);
const push = (e: Endpointer, f: boolean[]) => e.push(f, f.length * FRAME);

test('a silence as long as endpointing ends the utterance once; a shorter one does not', () => {
  const e = new Endpointer({ endpointing: 100, interimResults: false, utteranceEndMs: 1000 }, FRAME);
  assert.equal(push(e, frames(20, true)).endUtterance, false);
  assert.equal(push(e, frames(4, false)).endUtterance, false, '80 ms of silence < 100 ms');
  assert.equal(push(e, frames(1, true)).endUtterance, false, 'speech again resets the silence');
  assert.equal(push(e, frames(4, false)).endUtterance, false);
  assert.equal(push(e, frames(1, false)).endUtterance, true, '100 ms of silence');
  assert.equal(push(e, frames(50, false)).endUtterance, false, 'silence after the end ends nothing more');
});

test('endpointing 0 (endpointing=false) never ends an utterance on silence', () => {
  const e = new Endpointer({ endpointing: 0, interimResults: false, utteranceEndMs: 1000 }, FRAME);
  push(e, frames(20, true));
  assert.equal(push(e, frames(500, false)).endUtterance, false);
});

test('speech onsets are stamped where the speech began, once per onset', () => {
  const e = new Endpointer({ endpointing: 10, interimResults: false, utteranceEndMs: 1000 }, FRAME);
  assert.deepEqual(push(e, frames(10, false)).onsets, []);
  assert.deepEqual(push(e, frames(ONSET_FRAMES, true)).onsets, [+(10 * FRAME).toFixed(3)]);
  assert.deepEqual(push(e, frames(30, true)).onsets, []);
});

test('interim reads: the first after INTERIM_FIRST_SECONDS of speech, then every INTERIM_EVERY_SECONDS once one was shown; repeated text is not news', () => {
  const e = new Endpointer({ endpointing: 0, interimResults: true, utteranceEndMs: 1000 }, FRAME);
  const first = Math.ceil(INTERIM_FIRST_SECONDS / FRAME);
  assert.equal(push(e, frames(first - 1, true)).readInterim, false);
  assert.equal(push(e, frames(1, true)).readInterim, true);
  // Nothing shown yet (empty hypothesis): still read at the fast pace.
  assert.equal(e.interim(''), false);
  assert.equal(push(e, frames(first, true)).readInterim, true);
  assert.equal(e.interim('good'), true);
  assert.equal(e.interim('good'), false, 'the same transcript twice is told once');
  const every = Math.ceil(INTERIM_EVERY_SECONDS / FRAME);
  assert.equal(push(e, frames(every - 1, true)).readInterim, false);
  assert.equal(push(e, frames(1, true)).readInterim, true);
  // A finalized utterance starts the fast pace again.
  e.finalized(1.2);
  assert.equal(push(e, frames(first, true)).readInterim, true);
});

test('no interim reads when interim_results is off or outside speech', () => {
  const off = new Endpointer({ endpointing: 0, interimResults: false, utteranceEndMs: 1000 }, FRAME);
  assert.equal(push(off, frames(100, true)).readInterim, false);
  const silent = new Endpointer({ endpointing: 0, interimResults: true, utteranceEndMs: 1000 }, FRAME);
  assert.equal(push(silent, frames(100, false)).readInterim, false);
});

test('UtteranceEnd is due utterance_end_ms after the last word, outside speech, once per utterance', () => {
  const e = new Endpointer({ endpointing: 100, interimResults: false, utteranceEndMs: 1000 }, FRAME);
  assert.equal(e.utteranceEndDue(5), null, 'no word yet');
  push(e, frames(20, true));
  push(e, frames(5, false));
  e.finalized(0.4);
  assert.equal(e.utteranceEndDue(1.3), null, '0.9 s after the last word');
  assert.equal(e.utteranceEndDue(1.41), 0.4);
  assert.equal(e.utteranceEndDue(3), null, 'told once');
  // An utterance with no words (Finalize on silence) does not re-arm it.
  e.finalized(null);
  assert.equal(e.utteranceEndDue(9), null);
  // In speech it waits.
  e.finalized(3.0);
  push(e, frames(3, true));
  assert.equal(e.utteranceEndDue(9), null);
});
