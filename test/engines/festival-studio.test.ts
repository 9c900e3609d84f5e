// aura-max's engines: Festival with the HTS voice in one long-lived process (real audio at 32 kHz,
// speed through HTS, pitch, text that would break a Scheme string, calls queued in order, a
// bounded queue, aborts), the studio finishing chain (48 kHz, DC removed, loudness on target,
// checked against ffmpeg's EBU R128 meter) and Flite voices with an F0 mean (aura-lite's women).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkerPool } from '../../src/workers/pool.js';
import { createWorkerPool } from '../../src/tasks/table.js';
import { FestivalEngine } from '../../src/engines/festival/festival-engine.js';
import { schemeString } from '../../src/engines/festival/festival-process.js';
import { StudioEngine } from '../../src/engines/studio/studio-engine.js';
import { integratedLoudness, studioFinish } from '../../src/engines/studio/finishing.js';
import { truePeak } from '../../src/audio/dsp/level.js';
import { FliteEngine } from '../../src/engines/flite/flite-engine.js';
import type { SynthesisRequest } from '../../src/engines/engine.js';
import { encodeWav } from '../../src/audio/wav.js';
import { int16ToFloat32 } from '../../src/audio/pcm.js';
import { medianF0Wide } from './tts-measure.js';

const HTS = 'cmu_us_slt_arctic_hts';
const req = (text: string, over: Partial<SynthesisRequest> = {}): SynthesisRequest => ({
  text,
  engineVoice: HTS,
  language: 'en-US',
  speed: 1,
  pitch: 0,
  style: 'normal',
  ...over,
});
const seconds = (r: { samples: Int16Array; sampleRate: number }) => r.samples.length / r.sampleRate;

describe('Festival HTS and the studio chain', () => {
  let pool: WorkerPool;
  let festival: FestivalEngine;
  before(() => {
    pool = createWorkerPool({ threads: 2, maxQueue: 16 });
    festival = new FestivalEngine(pool);
  });
  after(async () => {
    festival.close();
    await pool.close();
  });

  test('Festival is available here and speaks English at 32 kHz', async () => {
    assert.deepEqual(festival.status(), { available: true });
    const r = await festival.synthesize(req('The museum opens at nine and closes at six.'));
    assert.equal(r.sampleRate, 32000);
    assert.ok(seconds(r) > 1.5 && seconds(r) < 5, `${seconds(r)} s`);
  });

  test('a missing binary makes the engine unavailable, with the reason', () => {
    const none = new FestivalEngine(pool, { binary: '/nonexistent/festival' });
    assert.equal(none.status().available, false);
    assert.match(none.status().reason!, /festival/);
    assert.deepEqual(none.languages(), []);
  });

  test('quotes, backslashes and parentheses are read as text, not as Scheme', async () => {
    assert.equal(schemeString('say "hi" \\ (now)\n'), '"say \\"hi\\" \\\\ (now) "');
    const r = await festival.synthesize(req('He said "stop" \\ (print "x") ) and left.'));
    assert.ok(seconds(r) > 1, `${seconds(r)} s`);
  });

  test('speed scales the duration; pitch moves the F0', async () => {
    const text = 'Please keep your phone on silent during the movie.';
    const [normal, fast, high] = await Promise.all([
      festival.synthesize(req(text)),
      festival.synthesize(req(text, { speed: 2 })),
      festival.synthesize(req(text, { pitch: 12 })),
    ]);
    const ratio = seconds(fast) / seconds(normal);
    assert.ok(ratio > 0.42 && ratio < 0.62, `speed 2 lasts ${ratio.toFixed(2)}x`);
    const f0 = medianF0Wide(normal.samples, normal.sampleRate);
    const f0High = medianF0Wide(high.samples, high.sampleRate);
    assert.ok(f0High / f0 > 1.8 && f0High / f0 < 2.2, `+12 st: ${f0} -> ${f0High} Hz`);
  });

  test('concurrent calls (queued over at most two processes) each get their own audio', async () => {
    const texts = ['One.', 'The train to the airport leaves every twenty minutes.', 'Two three.'];
    const out = await Promise.all(texts.map((t) => festival.synthesize(req(t))));
    assert.ok(seconds(out[1]!) > seconds(out[0]!) && seconds(out[1]!) > seconds(out[2]!));
  });

  test('an aborted call that is still waiting leaves the queue', async () => {
    const ac = new AbortController();
    const first = festival.synthesize(req('The old bridge was closed for repairs last week.'));
    const second = festival.synthesize(req('This one is cancelled.'), ac.signal);
    ac.abort(new Error('client left'));
    await assert.rejects(second, /client left/);
    assert.ok(seconds(await first) > 1);
  });

  test('the studio chain: 48 kHz, no DC, the fixed gain it is given, under the true-peak ceiling', async () => {
    const studio = new StudioEngine(festival, pool);
    assert.equal(studio.id, 'studio-festival');
    assert.equal(studio.voiceMapping, 'festival');
    const text = 'We need three more chairs for the guests tonight.';
    const raw = await festival.synthesize(req(text));
    const done = await studio.synthesize(req(text));
    const louder = await studio.synthesize({ ...req(text), gainDb: 6 });
    assert.equal(done.sampleRate, 48000);
    assert.ok(Math.abs(seconds(done) - seconds(raw)) < 0.01);
    const x = int16ToFloat32(done.samples);
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    assert.ok(Math.abs(mean) < 0.001, `DC ${mean}`);
    for (const r of [done, louder]) {
      const peak = 20 * Math.log10(truePeak(int16ToFloat32(r.samples)));
      assert.ok(peak <= -1, `true peak ${peak}`);
    }
    // The gain asked for is the gain applied (the limiter takes little off speech).
    const gain = integratedLoudness(int16ToFloat32(louder.samples), 48000) - integratedLoudness(x, 48000);
    assert.ok(gain > 5 && gain < 6.1, `+6 dB asked: ${gain.toFixed(2)} LU`);
    // Real content above 8 kHz survives (the HTS voice's wide band).
    const hiss = execEnergyAbove(done.samples, 48000, 8000);
    assert.ok(hiss > -40, `energy above 8 kHz ${hiss} dB`);
  });

  test('the chain limits what it upsamples: a full-scale square wave comes out under -1 dBTP', () => {
    const rate = 16000;
    const x = new Int16Array(rate);
    for (let i = 0; i < x.length; i++) x[i] = (Math.floor(i / 20) % 2 ? 1 : -1) * 32767;
    const y = studioFinish(x, rate);
    assert.equal(y.sampleRate, 48000);
    assert.ok(20 * Math.log10(truePeak(int16ToFloat32(y.samples))) <= -1);
  });
});

/** Energy above `hz`, dB relative to the whole signal (sox, as the spike measured it). */
function execEnergyAbove(samples: Int16Array, rate: number, hz: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-band-'));
  try {
    const f = path.join(dir, 'x.wav');
    writeFileSync(f, encodeWav(samples, rate));
    const rmsOf = (args: string[]) =>
      Number(/RMS\s+amplitude:\s+([\d.]+)/.exec(spawnSync('sox', [f, '-n', ...args, 'stat'], { encoding: 'utf8' }).stderr)![1]);
    return 20 * Math.log10(rmsOf(['sinc', String(hz)]) / rmsOf([]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the loudness meter agrees with ffmpeg (EBU R128) within 0.3 LU', () => {
  // ffmpeg is a test dependency (scripts/setup.sh): without it this test would check nothing.
  assert.equal(spawnSync('ffmpeg', ['-version']).status, 0, 'no ffmpeg on this machine: npm test installs it');
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-lufs-'));
  try {
    const f = path.join(dir, 's.wav');
    execFileSync('flite', ['-voice', 'slt', '-t', 'Remember to lock the door before you leave the office.', '-o', f]);
    execFileSync('sox', [f, '-r', '48000', path.join(dir, 's48.wav')]);
    const log = spawnSync('ffmpeg', ['-nostats', '-i', path.join(dir, 's48.wav'), '-af', 'ebur128', '-f', 'null', '-'], {
      encoding: 'utf8',
    }).stderr;
    const ref = Number(/I:\s+(-?[\d.]+) LUFS\s*\n\s*Threshold/.exec(log.slice(log.lastIndexOf('Summary')))![1]);
    const wav = execFileSync('sox', [path.join(dir, 's48.wav'), '-t', 'raw', '-e', 'signed', '-b', '16', '-']);
    const pcm = new Int16Array(wav.buffer, wav.byteOffset, wav.byteLength / 2);
    const ours = integratedLoudness(int16ToFloat32(pcm), 48000);
    assert.ok(Math.abs(ours - ref) < 0.3, `ours ${ours.toFixed(2)} vs ffmpeg ${ref}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("Flite voices with an F0 mean: kal16@185 speaks in a woman's range, kal16 in a man's", async () => {
  const pool = createWorkerPool({ threads: 1, maxQueue: 4 });
  try {
    const lite = new FliteEngine(pool, { id: 'flite-lite', voices: ['kal16'] });
    const text = 'The children planted tomatoes in the garden last spring.';
    const man = await lite.synthesize(req(text, { engineVoice: 'kal16' }));
    const woman = await lite.synthesize(req(text, { engineVoice: 'kal16@185' }));
    const higher = await lite.synthesize(req(text, { engineVoice: 'kal16@185', pitch: 3 }));
    const [f0m, f0w, f0h] = [man, woman, higher].map((r) => medianF0Wide(r.samples, r.sampleRate));
    assert.ok(f0m! < 130, `kal16 ${f0m} Hz`);
    assert.ok(f0w! > 160 && f0w! < 215, `kal16@185 ${f0w} Hz`);
    assert.ok(f0h! / f0w! > 1.1 && f0h! / f0w! < 1.3, `+3 st: ${f0w} -> ${f0h} Hz`);
    await assert.rejects(lite.synthesize(req(text, { engineVoice: 'slt' })), /unknown voice slt/);
    await assert.rejects(lite.synthesize(req(text, { engineVoice: 'kal16@9999' })), /unknown voice/);
  } finally {
    await pool.close();
  }
});
