// Noise gives no turn (issue 31's goal: no false speech start in 5 minutes of noise): 75 s each of
// white noise, pink noise, music-like chords and keyboard-like clicks (test/helpers/noise.ts)
// through the detector that serves by default (Silero VAD) and the turn layer, as a live session
// runs them; and the same pipeline does start a turn on a spoken sentence, so the check can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { NOISE_KINDS, noise } from '../../helpers/noise.js';
import { flite, padded } from '../../helpers/speech.js';
import { decodeWav } from '../../../src/audio/wav.js';
import { float32ToInt16, int16ToFloat32 } from '../../../src/audio/pcm.js';
import { SileroVad, sileroModelPath } from '../../../src/audio/silero-vad.js';
import { TURN_DEFAULTS, TurnLayer, type TurnEvent } from '../../../src/stt/live/turns.js';

const model = sileroModelPath();

/** The turn events `pcm` gives, fed in 100 ms chunks; the recognizer heard nothing. */
async function turns(pcm: Int16Array): Promise<TurnEvent[]> {
  const vad = SileroVad.create(model!);
  const events: TurnEvent[] = [];
  const layer = new TurnLayer(TURN_DEFAULTS, SileroVad.frameSeconds(), { partial: async () => null, finalize: async () => null }, (e) =>
    events.push(e),
  );
  for (let i = 0; i < pcm.length; i += 1600) {
    const chunk = pcm.subarray(i, i + 1600);
    layer.audio(chunk);
    await layer.push(vad.process(int16ToFloat32(chunk)), chunk.length / 16000, (i + chunk.length) / 16000);
  }
  return events;
}

test('5 minutes of noise (white, pink, music-like, clicks) start no turn with the Silero VAD', {
  skip: !model && 'the Silero model (@ricky0123/vad-web) is not installed',
}, async () => {
  const starts: Record<string, number> = {};
  for (const kind of NOISE_KINDS) starts[kind] = (await turns(noise(kind, 75))).filter((e) => e.event === 'StartOfTurn').length;
  assert.deepEqual(starts, { white: 0, pink: 0, music: 0, clicks: 0 });
});

test('the same pipeline starts a turn on a spoken sentence', { skip: !model && 'the Silero model is not installed' }, async () => {
  const pcm = float32ToInt16(decodeWav(readFileSync(padded(flite('Please bring the quarterly report.'), 0.5, 1))).channels[0]!);
  const events = await turns(pcm);
  assert.equal(events.filter((e) => e.event === 'StartOfTurn').length, 1);
  assert.ok(events.some((e) => e.event === 'EndOfTurn'));
});
