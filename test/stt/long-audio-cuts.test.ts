// Where long recordings are cut, on real audio (src/stt/long-audio/plan-task.ts, decision #72):
// Flite sentences, some with a silence inserted mid-sentence, 0.35-0.8 s apart, over pink noise
// (test/helpers/paused-speech.ts). Each spoken part's speech span is known, so a cut inside
// speech is seen. Silero VAD cuts when its model is given; WebRTC's VAD
// cuts otherwise and when the model does not load. Both must cut only in pauses; the planner's
// arithmetic on frame flags is in long-audio-plan.test.ts, the whole path in long-audio.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { sileroModelPath } from '../../src/audio/silero-vad.js';
import { sttSettings } from '../../src/config/stt.js';
import { planLongAudio, type Plan } from '../../src/stt/long-audio/plan-task.js';
import { cutMargins, pausedSpeech } from '../helpers/paused-speech.js';

const RATE = 16000;
let pcm: Int16Array;
let spans: Array<[number, number]>;

before(() => {
  ({ pcm, spans } = pausedSpeech());
  assert.ok(pcm.length / RATE > 90, `${pcm.length / RATE} s`);
});

const margins = (plan: Plan) =>
  cutMargins(
    plan.pieces.slice(0, -1).map((p) => p.end / RATE),
    spans,
  );

describe('cut points on real speech', () => {
  test('Silero VAD serves when its model is given, and every cut lies in a pause', async () => {
    const model = sileroModelPath();
    assert.ok(model, 'the Silero model ships with @ricky0123/vad-web');
    const plan = await planLongAudio(pcm, 15, {}, { silero: model });
    assert.equal(plan.vad, 'silero');
    assert.ok(plan.pieces.length >= 5, `${plan.pieces.length} pieces`);
    const m = margins(plan);
    assert.ok(
      m.every((x) => x >= 0.1),
      `cuts at least 0.1 s from speech: ${m.map((x) => x.toFixed(2)).join(' ')}`,
    );
  });

  test('WebRTC VAD serves without the model (PARLA_VAD=webrtc) and cuts in pauses too', async () => {
    const plan = await planLongAudio(pcm, 15, {}, {});
    assert.equal(plan.vad, 'webrtc');
    const m = margins(plan);
    assert.ok(
      m.every((x) => x >= 0.1),
      `cuts at least 0.1 s from speech: ${m.map((x) => x.toFixed(2)).join(' ')}`,
    );
  });

  test('a Silero model that does not load falls back to WebRTC, with the same cuts', async () => {
    const broken = path.join(path.dirname(sileroModelPath()!), 'no-such-model.onnx');
    const [fallback, webrtc] = await Promise.all([planLongAudio(pcm, 15, {}, { silero: broken }), planLongAudio(pcm, 15, {}, {})]);
    assert.equal(fallback.vad, 'webrtc');
    assert.deepEqual(fallback.pieces, webrtc.pieces);
  });

  test("server_vad's threshold reaches Silero: at 0.99 hardly anything is speech, so a cut can go at the target", async () => {
    const model = sileroModelPath()!;
    const [strict, usual] = await Promise.all([
      planLongAudio(pcm, 15, { threshold: 0.99 }, { silero: model }),
      planLongAudio(pcm, 15, {}, { silero: model }),
    ]);
    assert.equal(strict.vad, 'silero');
    assert.notDeepEqual(strict.pieces, usual.pieces, 'a different threshold finds different pauses');
  });
});

describe('PARLA_STT_CUT_VAD', () => {
  test('webrtc by default (decision #72), silero when asked, anything else stops the start', () => {
    assert.equal(sttSettings({}, 2, 2).sttLong.cutVad, 'webrtc');
    assert.equal(sttSettings({ PARLA_STT_CUT_VAD: 'Silero' }, 2, 2).sttLong.cutVad, 'silero');
    assert.throws(() => sttSettings({ PARLA_STT_CUT_VAD: 'energy' }, 2, 2), /PARLA_STT_CUT_VAD must be silero or webrtc/);
  });
});
