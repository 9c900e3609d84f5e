// The turn layer alone (src/stt/live/turns.ts): frame decisions in (written out as the VAD would give
// them) with the audio they were made on (a voiced tone at a pitch the test sets, or silence), turn
// events out. The recognizer is the layer's port: here it answers with the words a test sets, so
// each rule (how a sentence reads, the fall of the voice, the pause it needs, eager ends,
// resumption, timeout, ForceEndTurn) is checked on its own; the real recognizer is in
// test/compat/deepgram-flux.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  endOfTurnConfidence,
  sentenceState,
  TURN_DEFAULTS,
  TurnLayer,
  type TurnEvent,
  type TurnSettings,
} from '../../../src/stt/live/turns.js';

const FRAME = 0.02;
const frames = (n: number, speech: boolean) => Array.from({ length: n }, () => speech);

function layer(settings: Partial<TurnSettings> = {}) {
  let heard = '';
  let finals = 0;
  const events: TurnEvent[] = [];
  let now = 0;
  let phase = 0;
  const l = new TurnLayer(
    { ...TURN_DEFAULTS, ...settings },
    FRAME,
    {
      partial: async () =>
        heard
          ? { transcript: heard, words: heard.split(' ').map((w) => ({ word: w, start: 0, end: 0, confidence: 1, punctuated_word: w })) }
          : null,
      finalize: async () => {
        const text = heard;
        heard = '';
        finals++;
        return text ? { transcript: text, words: [], start: 0, end: now } : null;
      },
    },
    (e) => events.push(e),
  );
  return {
    events,
    say: (text: string) => (heard = text),
    finals: () => finals,
    /**
     * Feeds `n` frames, 5 at a time (100 ms chunks, as a client sends): speech is a voiced tone
     * gliding from `pitch[0]` to `pitch[1]` Hz (default a level 150 Hz) at `amp` of -12 dBFS,
     * silence is silent; `vad` overrides what the VAD says (a late call).
     */
    async feed(n: number, speech: boolean, pitch: [number, number] = [150, 150], vad = speech, amp = 1) {
      for (let i = 0; i < n; i += 5) {
        const k = Math.min(5, n - i);
        const pcm = new Int16Array(k * 320);
        if (speech) {
          for (let j = 0; j < pcm.length; j++) {
            // The glide reaches its end at 80% of the speech and stays there, as a voice settles.
            const at = Math.min(1, (i * 320 + j) / (n * 320 * 0.8));
            const f0 = pitch[0] + (pitch[1] - pitch[0]) * at;
            phase += (2 * Math.PI * f0) / 16000;
            pcm[j] = Math.round(amp * 4000 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase)));
          }
        }
        l.audio(pcm);
        now += k * FRAME;
        await l.push(frames(k, vad), k * FRAME, now);
      }
    },
    force: () => l.force(now),
    close: () => l.close(now),
  };
}

const names = (events: TurnEvent[]) => events.map((e) => e.event);

test('how a sentence reads: finished, open, or trailing off on a function word; final when the voice also fell', () => {
  assert.equal(sentenceState('the meeting starts at nine'), 'complete');
  assert.equal(sentenceState('the meeting starts at nine', true), 'final');
  assert.equal(sentenceState('hello', true), 'final');
  assert.equal(sentenceState('the meeting starts and', true), 'trailing', 'a trailing word wins over a fall');
  assert.equal(sentenceState('Please bring the report.'), 'complete');
  assert.equal(sentenceState('the meeting starts at'), 'trailing');
  assert.equal(sentenceState('I went there because'), 'trailing');
  assert.equal(sentenceState('and the'), 'trailing');
  assert.equal(sentenceState('hello'), 'open');
  assert.equal(sentenceState(''), 'open');
});

test('the pause a sentence needs: final 210 ms, finished words without a fall 700 ms, trailing 1.1 s (at 0.7)', () => {
  assert.equal(endOfTurnConfidence(210, 'final'), 0.7);
  assert.equal(endOfTurnConfidence(700, 'complete'), 0.7);
  assert.ok(endOfTurnConfidence(280, 'trailing') < 0.2);
  assert.equal(endOfTurnConfidence(1120, 'trailing'), 0.7);
  assert.equal(endOfTurnConfidence(5000, 'open'), 1);
});

test('a turn: StartOfTurn after 120 ms of speech, Updates about every 0.25 s, EndOfTurn after the pause a falling finished sentence needs', async () => {
  const t = layer();
  await t.feed(5, false);
  t.say('the meeting starts');
  await t.feed(50, true, [200, 110]);
  t.say('the meeting starts at nine');
  await t.feed(15, false); // 300 ms: 1 >= 0.7
  assert.deepEqual([...new Set(names(t.events))], ['StartOfTurn', 'Update', 'EndOfTurn']);
  const end = t.events.at(-1)!;
  assert.equal(end.transcript, 'the meeting starts at nine');
  assert.equal(end.trigger, 'pause');
  assert.equal(end.turnIndex, 0);
  assert.ok(Math.abs(end.start - 0.1) < 1e-9, `onset stamped where speech began: ${end.start}`);
  const updates = t.events.filter((e) => e.event === 'Update').length;
  assert.ok(updates >= 3 && updates <= 5, `about every 0.25 s over 1 s of speech: ${updates}`);
});

test('the same finished words: a falling voice ends the turn sooner than a level one; a trailing "and" waits longer than both', async () => {
  const endAfter = async (text: string, pitch: [number, number]) => {
    const t = layer();
    t.say(text);
    await t.feed(50, true, pitch);
    const speechEnd = 1;
    await t.feed(100, false);
    const end = t.events.find((e) => e.event === 'EndOfTurn');
    assert.ok(end, `${text}: an EndOfTurn within 2 s`);
    return Math.round((end.end - speechEnd) * 1000);
  };
  const falling = await endAfter('we finished the project', [200, 110]);
  const level = await endAfter('we finished the project', [150, 150]);
  const trailing = await endAfter('we finished the project and', [200, 110]);
  assert.ok(falling <= 300, `falling: ${falling} ms`);
  assert.ok(level >= 600 && level <= 800, `level: ${level} ms (a 300-600 ms pause inside a sentence does not end it)`);
  assert.ok(trailing > level, `trailing "and" ${trailing} ms > level ${level} ms`);
});

test('the pause counts from the last loud frame, not from a VAD that calls silence late', async () => {
  const t = layer();
  t.say('the meeting starts at nine');
  await t.feed(50, true, [200, 110]);
  await t.feed(10, false, undefined, true); // 200 ms of silence the VAD still calls speech
  assert.ok(!t.events.some((e) => e.event === 'EndOfTurn'));
  await t.feed(5, false); // the VAD's call: the pause is already 300 ms
  const end = t.events.find((e) => e.event === 'EndOfTurn');
  assert.ok(end && Math.abs(end.end - 1.3) < 1e-9, `ended at the VAD's call: ${end?.end}`);
});

test("a loud click long before does not make a quiet talker's short gap a long pause", async () => {
  const t = layer();
  await t.feed(5, true, [150, 150]); // loud: a click the VAD does not call speech
  await t.feed(100, false, undefined, false); // 2 s of room
  t.say('the meeting starts at nine');
  // Speech the VAD hears, below -40 dBFS (no loud frame), then a 200 ms gap between words.
  await t.feed(40, true, [200, 110], true, 0.03);
  await t.feed(10, false);
  assert.ok(!t.events.some((e) => e.event === 'EndOfTurn'), JSON.stringify(t.events.map((e) => e.event)));
});

test('a sentence that trails off ("... at the") does not end at 500 ms of pause even with a falling voice; it goes on into the same turn', async () => {
  const t = layer();
  t.say('the meeting starts at the');
  await t.feed(50, true, [200, 110]);
  await t.feed(25, false); // 500 ms: 0.31 < 0.7
  assert.ok(!names(t.events).includes('EndOfTurn'));
  t.say('the meeting starts at the office');
  await t.feed(30, true, [180, 100]);
  await t.feed(20, false);
  const ends = t.events.filter((e) => e.event === 'EndOfTurn');
  assert.equal(ends.length, 1);
  assert.equal(ends[0]!.transcript, 'the meeting starts at the office');
  assert.equal(t.events.filter((e) => e.event === 'StartOfTurn').length, 1);
});

test('eager: EagerEndOfTurn then EndOfTurn with the same text; or TurnResumed when speech comes back, then one EndOfTurn with all of it', async () => {
  const t = layer({ eagerEotThreshold: 0.4, eotThreshold: 0.8 });
  t.say('the meeting starts at nine');
  await t.feed(30, true, [200, 110]);
  await t.feed(25, false);
  assert.deepEqual(
    names(t.events).filter((n) => n !== 'Update'),
    ['StartOfTurn', 'EagerEndOfTurn', 'EndOfTurn'],
  );
  const [eager, end] = t.events.filter((e) => e.event === 'EagerEndOfTurn' || e.event === 'EndOfTurn');
  assert.equal(end!.transcript, eager!.transcript);

  const r = layer({ eagerEotThreshold: 0.4, eotThreshold: 0.8 });
  r.say('the meeting starts');
  await r.feed(30, true);
  await r.feed(25, false); // 500 ms, level voice: 0.5 >= 0.4: eager
  r.say('in the big room');
  await r.feed(30, true, [200, 110]); // resumes
  await r.feed(25, false);
  assert.deepEqual(
    names(r.events).filter((n) => n !== 'Update'),
    ['StartOfTurn', 'EagerEndOfTurn', 'TurnResumed', 'EagerEndOfTurn', 'EndOfTurn'],
  );
  assert.equal(r.events.at(-1)!.transcript, 'the meeting starts in the big room');
});

test("eot_timeout_ms ends any turn; ForceEndTurn ends one now; the stream's end ends an open one; the next turn counts on", async () => {
  const t = layer({ eotTimeoutMs: 600, eotThreshold: 0.9 });
  t.say('so and');
  await t.feed(20, true);
  await t.feed(30, false);
  assert.equal(t.events.at(-1)!.trigger, 'timeout');
  t.say('bring the report');
  await t.feed(20, true);
  await t.force();
  assert.equal(t.events.at(-1)!.trigger, 'client');
  assert.equal(t.events.at(-1)!.turnIndex, 1);
  await t.force(); // outside a turn: nothing
  assert.equal(t.events.filter((e) => e.event === 'EndOfTurn').length, 2);
  t.say('one more');
  await t.feed(20, true);
  await t.close();
  assert.equal(t.events.at(-1)!.trigger, 'close');
  assert.equal(t.events.at(-1)!.turnIndex, 2);
});

test('noise shorter than 120 ms starts no turn', async () => {
  const t = layer();
  for (let i = 0; i < 20; i++) {
    await t.feed(5, true);
    await t.feed(5, false);
  }
  assert.equal(t.events.length, 0);
});
