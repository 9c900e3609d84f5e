// The 30 Aura voices sound different from each other: each is synthesized saying the same sentence
// on eSpeak NG (German) and on Flite (English) and compared on what a listener
// hears first: pitch (median F0), tempo (duration) and timbre (spectral centroid of speech).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { medianF0Wide } from '../engines/tts-measure.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const FRAME = 1024;
const BINS = 96;
const MAX_HZ = 5500;
const tables = new Map<number, { cos: Float32Array; sin: Float32Array }>();

/** DFT basis for BINS frequencies up to MAX_HZ at this rate (only these bins are needed). */
function basis(sampleRate: number): { cos: Float32Array; sin: Float32Array } {
  let t = tables.get(sampleRate);
  if (!t) {
    t = { cos: new Float32Array(BINS * FRAME), sin: new Float32Array(BINS * FRAME) };
    for (let b = 0; b < BINS; b++) {
      const w = (2 * Math.PI * ((b + 1) / BINS) * MAX_HZ) / sampleRate;
      for (let i = 0; i < FRAME; i++) {
        t.cos[b * FRAME + i] = Math.cos(w * i);
        t.sin[b * FRAME + i] = Math.sin(w * i);
      }
    }
    tables.set(sampleRate, t);
  }
  return t;
}

/** Mean frequency of the magnitude spectrum (up to 5.5 kHz) over loud frames: a voice's brightness. */
function spectralCentroid(samples: Int16Array, sampleRate: number): number {
  const { cos, sin } = basis(sampleRate);
  const x = new Float32Array(FRAME);
  let num = 0;
  let den = 0;
  for (let start = 0; start + FRAME <= samples.length; start += FRAME * 3) {
    let energy = 0;
    for (let i = 0; i < FRAME; i++) {
      x[i] = samples[start + i]! / 32768;
      energy += x[i]! ** 2;
    }
    if (Math.sqrt(energy / FRAME) < 0.03) continue;
    for (let b = 0; b < BINS; b++) {
      let re = 0;
      let im = 0;
      for (let i = 0; i < FRAME; i++) {
        re += x[i]! * cos[b * FRAME + i]!;
        im += x[i]! * sin[b * FRAME + i]!;
      }
      const mag = Math.hypot(re, im);
      num += ((b + 1) / BINS) * MAX_HZ * mag;
      den += mag;
    }
  }
  return den ? num / den : 0;
}

/** Synthesizes one sentence with every Aura voice on one engine and lists the pairs that measure alike. */
async function alikePairs(engineId: 'espeak' | 'flite', language: string, text: string): Promise<string[]> {
  const catalog = t.services.catalog;
  const engine = t.services.registry.ttsEngine(engineId)!;
  const measured = [];
  // One at a time: the test pool's queue is small on purpose.
  for (const v of catalog.data.auraVoices) {
    const pcm = await engine.synthesize({
      text,
      engineVoice: v[engineId],
      language,
      speed: v.baseRate,
      pitch: v.basePitch,
      style: 'normal',
    });
    measured.push({
      id: v.id,
      engineVoice: v[engineId],
      f0: medianF0Wide(pcm.samples, pcm.sampleRate),
      seconds: pcm.samples.length / pcm.sampleRate,
      centroid: spectralCentroid(pcm.samples, pcm.sampleRate),
    });
  }
  const close: string[] = [];
  for (let i = 0; i < measured.length; i++) {
    for (let j = i + 1; j < measured.length; j++) {
      const a = measured[i]!;
      const b = measured[j]!;
      // Different Flite voices are different speakers; on one speaker, pitch and rate must tell voices apart.
      if (engineId === 'flite' && a.engineVoice !== b.engineVoice) continue;
      const rel = (x: number, y: number) => Math.abs(x - y) / Math.max(x, y);
      // Thresholds near what listeners notice: ~1 semitone of pitch, 5% of tempo, 5% of brightness.
      if (rel(a.f0, b.f0) < 0.055 && rel(a.seconds, b.seconds) < 0.05 && rel(a.centroid, b.centroid) < 0.05) {
        close.push(
          `${a.id}/${b.id} f0 ${a.f0.toFixed(0)}/${b.f0.toFixed(0)} s ${a.seconds.toFixed(2)}/${b.seconds.toFixed(2)} c ${a.centroid.toFixed(0)}/${b.centroid.toFixed(0)}`,
        );
      }
    }
  }
  return close;
}

test('every pair of Aura voices differs audibly in pitch, tempo or timbre on eSpeak NG (all languages but English)', async () => {
  assert.deepEqual(await alikePairs('espeak', 'de', 'Guten Morgen, wir lesen heute zusammen.'), []);
});

test('every pair of Aura voices differs audibly in pitch, tempo or timbre on Flite (English)', async () => {
  assert.deepEqual(await alikePairs('flite', 'en-US', 'Good morning, today we read together.'), []);
});
