// Issue 29, items 1 and 2, measured on the audio itself: the catalogue sweep (every voice of
// every TTS model and every language it serves, two voices per language, one sentence per
// language, as /tts/generate renders it) has no clipped sample, a true peak at or under -1 dBTP, and every voice within +-1 LU of
// -16 LUFS (BS.1770 integrated). The sentences (test/helpers/voice-sweep.ts, sweepText) are 2-3.5 s
// of speech, 17-30 of the meter's 400 ms blocks, so its gates have pauses to leave out and
// speech to keep; the calibration (scripts/voice-levels.ts) measures on the same sentences, so this
// checks that the committed gains, the engines and the output stage still give the target.
// aura-lite, aura-prime and rapid-max share their eSpeak renderings for other languages, and
// aura-max's are those renderings through the studio finishing (`audio.studio`, run on a copy):
// each is synthesized once. Then the edges: the slowest and fastest speed and the lowest and
// highest pitch, every output format decoded by ffmpeg, and /tts/stream against the file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import type { AuthContext } from '../../src/accounts/auth-context.js';
import { runSweep, sweepCases, type SweepCase } from '../helpers/voice-sweep.js';
import { TARGET_LUFS } from '../../src/tts/levels.js';
import { decodeWav } from '../../src/audio/wav.js';
import { integratedLoudness } from '../../src/engines/studio/finishing.js';
import { truePeak } from '../../src/audio/dsp/level.js';

let t: TestApp;
let auth: AuthContext;
let apiKey: string;

before(async () => {
  t = await createTestApp({ PARLA_WORKERS: '2' });
  const acct = await createTestAccount(t.services, { plan: 'enterprise', credits: 10_000_000 });
  apiKey = acct.apiKey;
  auth = { account: (await t.services.store.getAccount(acct.accountId))!, key: (await t.services.store.getKey(acct.keyId))!, mode: 'live' };
});
after(() => t.close());

type Results = Map<string, { clipped: number; truePeakDb: number; lufs: number }>;
let swept: { cases: SweepCase[]; results: Results } | null = null;

/**
 * The catalogue's cover, rendered and measured once for the two checks below: every language with
 * two voices, turning through the voice list, so every voice and every language is measured (each
 * voice in ~7 languages) in ~500 renderings instead of the whole catalogue's ~6,400, which took
 * 6 minutes of the suite (decision #96). The whole catalogue: scripts/voice-levels.ts --check.
 */
async function sweep(): Promise<{ cases: SweepCase[]; results: Results }> {
  if (swept) return swept;
  const cover = sweepCases(t.services, auth, { cover: 2 });
  // The issue's own case, Elena in Spanish, wherever the cover turned.
  const elena = sweepCases(t.services, auth, { languages: ['es'] }).filter(
    (c) => c.labels.some((l) => l.startsWith('aura-prime Elena (es,')) && !cover.some((k) => k.key === c.key),
  );
  const cases = [...cover, ...elena];
  for (const model of ['aura-lite', 'aura-prime', 'aura-max']) {
    const ofModel = cases.filter((c) => c.models.includes(model));
    assert.equal(
      new Set(ofModel.map((c) => c.job.language)).size,
      t.services.catalog.languagesFor(model).length,
      `${model}: every language`,
    );
    const voices = new Set(ofModel.flatMap((c) => c.voiceIds));
    assert.equal(voices.size, t.services.catalog.data.auraVoices.length, `${model}: every voice`);
  }
  const t0 = Date.now();
  const results = await runSweep(t.services, cases, 2);
  const perModel = new Map<string, number[]>();
  for (const c of cases) for (const m of c.models) (perModel.get(m) ?? perModel.set(m, []).get(m)!).push(results.get(c.key)!.lufs);
  for (const [model, l] of perModel)
    console.log(`${model}: ${l.length} renderings, ${Math.min(...l).toFixed(2)}..${Math.max(...l).toFixed(2)} LUFS`);
  console.log(
    `${cases.length} renderings (${cases.filter((c) => c.finishedFrom).length} of them finished copies) in ${Math.round((Date.now() - t0) / 1000)} s`,
  );
  swept = { cases, results };
  return swept;
}

test('the catalogue sweep: no clipping, true peak <= -1 dBTP', async () => {
  const { cases, results } = await sweep();
  // The cases are among them, and aura-max in every language it serves.
  assert.ok(cases.some((c) => c.labels.some((l) => l.startsWith('aura-prime Elena (es,'))));
  assert.ok(cases.some((c) => c.labels.some((l) => l.startsWith('rapid-flash Harvey (es-US,'))));
  const auraMax = new Set(cases.filter((c) => c.models.includes('aura-max')).map((c) => c.job.language));
  assert.equal(auraMax.size, t.services.catalog.languagesFor('aura-max').length);
  const bad: string[] = [];
  for (const c of cases) {
    const m = results.get(c.key)!;
    if (m.clipped > 0) bad.push(`${c.labels[0]}: ${m.clipped} clipped samples`);
    if (m.truePeakDb > -1) bad.push(`${c.labels[0]}: true peak ${m.truePeakDb.toFixed(2)} dBTP`);
  }
  assert.deepEqual(bad, []);
});

test(`the catalogue sweep: every voice within 1 LU of ${TARGET_LUFS} LUFS`, async () => {
  const { cases, results } = await sweep();
  const far = cases.filter((c) => !(Math.abs(results.get(c.key)!.lufs - TARGET_LUFS) <= 1));
  assert.deepEqual(
    far.map((c) => `${c.labels[0]}: ${results.get(c.key)!.lufs.toFixed(2)} LUFS`),
    [],
  );
});

test('the slowest, fastest, lowest and highest settings do not clip either', async () => {
  const picks = [
    'aura-prime Elena (es,',
    'rapid-flash Harvey (es-US,',
    'aura-max Aria (en-US,',
    'aura-prime Aria (en-US,',
    'aura-lite Orion (en-US,',
    'aura-prime Hannah (de,',
  ];
  const bad: string[] = [];
  for (const [speed, pitch] of [
    [0.5, -20],
    [2, 20],
    [1, 20],
    [0.5, 12],
  ] as const) {
    const cases = sweepCases(t.services, auth, { speed, pitch, languages: ['es', 'es-US', 'en-US', 'de'] }).filter((c) =>
      c.labels.some((l) => picks.some((p) => l.startsWith(p))),
    );
    assert.ok(cases.length >= picks.length - 1);
    const results = await runSweep(t.services, cases, 2);
    for (const c of cases) {
      const m = results.get(c.key)!;
      if (m.clipped > 0 || m.truePeakDb > -1)
        bad.push(`speed ${speed} pitch ${pitch} ${c.labels[0]}: ${m.clipped} clipped, ${m.truePeakDb.toFixed(2)} dBTP`);
    }
  }
  assert.deepEqual(bad, []);
});

/** ffmpeg's own true-peak meter (4x oversampling, ITU-R BS.1770) on any file it decodes. */
function ffmpegTruePeak(bytes: Buffer, ext: string): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'parla-tp-'));
  try {
    const f = path.join(dir, `a.${ext}`);
    writeFileSync(f, bytes);
    const r = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', f, '-af', 'ebur128=peak=true', '-f', 'null', '-'], {
      encoding: 'utf8',
    });
    const m = /True peak:\s*\n\s*Peak:\s*(-?[\d.]+|-inf) dBFS/.exec(r.stderr);
    assert.ok(m, r.stderr.slice(-400));
    return Number(m[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const post = (url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: { 'x-api-key': apiKey }, payload });

test('every format, decoded by ffmpeg, stays under -1 dBTP', async () => {
  const bad: string[] = [];
  for (const body of [
    { text: 'Buenos días, el tren sale a las ocho del andén tres.', voice: 'Elena', model: 'aura-prime', language: 'es' },
    { text: 'Buenos días, el tren sale a las ocho del andén tres.', voice: 'Harvey', model: 'rapid-flash' },
    { text: 'We need three more chairs for the guests tonight.', voice: 'Aria', model: 'aura-max' },
  ]) {
    for (const format of ['wav', 'mp3', 'ogg', 'flac']) {
      const res = await post('/api/v1/tts/generate', { ...body, format });
      assert.equal(res.statusCode, 200, res.body);
      const tp = ffmpegTruePeak(res.rawPayload, format);
      if (tp > -1) bad.push(`${body.voice} ${body.model} ${format}: ${tp} dBTP`);
    }
  }
  assert.deepEqual(bad, []);
});

test("the stream has the file's loudness and peak ceiling (a fixed gain, not one per chunk)", async () => {
  const text = 'Buenos días, el tren sale a las ocho del andén tres. Mañana llueve en Madrid. ¿Dónde está la estación?';
  for (const body of [
    { text, voice: 'Elena', model: 'aura-prime', language: 'es' },
    { text: 'We need three more chairs for the guests tonight. The museum opens at nine.', voice: 'Orion', model: 'aura-max' },
  ]) {
    const file = await post('/api/v1/tts/generate', { ...body, format: 'wav' });
    assert.equal(file.statusCode, 200, file.body);
    const wav = decodeWav(file.rawPayload);
    const stream = await post('/api/v1/tts/stream', { ...body, sample_rate: wav.sampleRate });
    assert.equal(stream.statusCode, 200, stream.body);
    const raw = stream.rawPayload;
    const pcm = new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
    const s = new Float32Array(pcm.length);
    for (let i = 0; i < pcm.length; i++) s[i] = pcm[i]! / 32768;
    const f = wav.channels[0]!;
    const [lf, ls] = [integratedLoudness(f, wav.sampleRate), integratedLoudness(s, wav.sampleRate)];
    assert.ok(Math.abs(lf - ls) < 0.5, `${body.voice}: file ${lf.toFixed(2)} LUFS, stream ${ls.toFixed(2)}`);
    assert.ok(20 * Math.log10(truePeak(s)) <= -1, `${body.voice} stream true peak`);
  }
});
