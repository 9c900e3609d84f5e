// Measures every voice of every TTS model in every language it serves (test/helpers/voice-sweep.ts)
// and prints, per model: renderings with clipped samples, the largest true peak, and the loudness
// spread (LUFS, BS.1770). With --calibrate it also writes src/catalog/data/voice-levels.json: for
// each voice (engine voice key, engine voice, language, pitch) the gain that brings its measured
// loudness to the target. The limiter takes back part of a gain where a voice's peaks stand far
// above its loudness, so one step (gain += target - measured) falls short: the script renders
// again with the new gains and corrects by the measured slope (secant steps), up to --passes
// times (default 4) or until every voice is within 0.2 LU. It measures on the test's sentence
// (test/helpers/voice-sweep.ts, sweepText); `--text preview` measures on the voice previews'.
// The table is data the service reads (src/tts/levels.ts).
// --check fails (exit 1) when any rendering clips, peaks over -1 dBTP or is more than 1 LU off the
// target: the test suite's bounds over the whole catalogue (the suite renders a cover, decision #96).
// Run: node --import tsx scripts/voice-levels.ts [--check] [--calibrate] [--passes 4] [--models aura-lite,aura-max] [--languages en-US,de] [--engines festival] [--text preview] [--json out.json]
import { writeFileSync } from 'node:fs';
import { createServices } from '../src/services.js';
import { testConfig, tempDir } from '../test/helpers/env.js';
import { createTestAccount } from '../test/helpers/app.js';
import type { AuthContext } from '../src/accounts/auth-context.js';
import { runSweep, sweepCases, type Measured, type SweepCase } from '../test/helpers/voice-sweep.js';
import { sampleText } from '../src/tts/voice-previews.js';
import { TARGET_LUFS } from '../src/tts/levels.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const calibrate = args.includes('--calibrate');
const models = flag('--models')?.split(',');
const languages = flag('--languages')?.split(',');

function report(cases: SweepCase[], results: Map<string, Measured>): void {
  const perModel = new Map<string, Array<{ c: SweepCase; m: Measured }>>();
  for (const c of cases)
    for (const model of c.models) (perModel.get(model) ?? perModel.set(model, []).get(model)!).push({ c, m: results.get(c.key)! });
  console.log(
    '| model | renderings | with clipped samples | clipped samples (total) | highest true peak (dBTP) | loudness min..max (LUFS) | spread (LU) | largest deviation from -16 (LU) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [model, rows] of perModel) {
    const lufs = rows.map((r) => r.m.lufs).filter(Number.isFinite);
    const lo = Math.min(...lufs);
    const hi = Math.max(...lufs);
    const clippedRows = rows.filter((r) => r.m.clipped > 0);
    const dev = Math.max(...lufs.map((l) => Math.abs(l + 16)));
    console.log(
      `| ${model} | ${rows.length} | ${clippedRows.length} | ${clippedRows.reduce((n, r) => n + r.m.clipped, 0)} | ${Math.max(...rows.map((r) => r.m.truePeakDb)).toFixed(2)} | ${lo.toFixed(1)}..${hi.toFixed(1)} | ${(hi - lo).toFixed(1)} | ${dev.toFixed(2)} |`,
    );
  }
  const far = cases
    .map((c) => ({ c, l: results.get(c.key)!.lufs }))
    .sort((a, b) => Math.abs(b.l + 16) - Math.abs(a.l + 16))
    .slice(0, 8);
  console.log('\nfurthest from the target:', far.map((f) => `${f.c.labels[0]}: ${f.l.toFixed(2)}`).join('; '));
  const json = flag('--json');
  if (json)
    writeFileSync(
      json,
      JSON.stringify(
        cases.map((c) => ({ labels: c.labels, text: c.text, ...results.get(c.key)! })),
        null,
        1,
      ),
    );
}

const tmp = tempDir('parla-levels-');
const services = await createServices(
  testConfig({ PARLA_WORKERS: process.env.PARLA_WORKERS ?? '2' }, tmp.dir),
  (await import('pino')).pino({ level: 'silent' }) as never,
);
const levels = calibrate ? await import('../src/tts/levels.js') : null;
try {
  const acct = await createTestAccount(services, { plan: 'enterprise' });
  const auth: AuthContext = {
    account: (await services.store.getAccount(acct.accountId))!,
    key: (await services.store.getKey(acct.keyId))!,
    mode: 'live',
  };
  const text = flag('--text') === 'preview' ? (name: string, language: string) => sampleText(name, language) : undefined;
  let cases = sweepCases(services, auth, { ...(models ? { models } : {}), ...(text ? { text } : {}) });
  if (languages) cases = cases.filter((c) => languages.includes(c.job.language));
  // --engines festival: only the renderings of those engines' voices (after a change to one engine).
  const engines = flag('--engines')?.split(',');
  if (engines) cases = cases.filter((c) => engines.includes(c.job.voice.engine.voiceMapping ?? c.job.voice.engine.id));
  // A studio engine speaks its inner engine's voices with the same gain (its mapping key): where
  // the inner engine's own rendering is in the sweep, the studio's adds nothing to calibrate.
  if (calibrate) cases = cases.filter((c) => !c.finishedFrom);
  const passes = calibrate ? Number(flag('--passes') ?? 4) : 1;
  /** Per gain key and pitch: the gain and loudness of the pass before (for the secant step). */
  const before = new Map<string, { gain: number; lufs: number }>();
  for (let pass = 1; pass <= passes; pass++) {
    console.error(`pass ${pass}: ${cases.length} renderings`);
    const started = Date.now();
    let done = 0;
    const results = await runSweep(services, cases, Number(process.env.PARLA_WORKERS ?? 2), () => {
      if (++done % 500 === 0) console.error(`${done}/${cases.length} (${Math.round((Date.now() - started) / 1000)} s)`);
    });
    console.error(`swept in ${Math.round((Date.now() - started) / 1000)} s`);
    report(cases, results);
    if (args.includes('--check')) {
      // The test suite's bounds (test/tts/voice-levels.test.ts) over every rendering of the sweep.
      const bad = cases.flatMap((c) => {
        const m = results.get(c.key)!;
        const faults = [
          ...(m.clipped > 0 ? [`${m.clipped} clipped samples`] : []),
          ...(m.truePeakDb > -1 ? [`true peak ${m.truePeakDb.toFixed(2)} dBTP`] : []),
          ...(Math.abs(m.lufs - TARGET_LUFS) <= 1 ? [] : [`${m.lufs.toFixed(2)} LUFS`]),
        ];
        return faults.length ? [`${c.labels[0]}: ${faults.join(', ')}`] : [];
      });
      for (const line of bad) console.log(`out of bounds: ${line}`);
      console.log(`${cases.length - bad.length} passed, ${bad.length} failed`);
      if (bad.length) process.exitCode = 1;
    }
    if (!levels) break;
    const worst = Math.max(...cases.map((c) => Math.abs(results.get(c.key)!.lufs - levels.TARGET_LUFS)).filter(Number.isFinite));
    console.error(`pass ${pass}: largest deviation ${worst.toFixed(2)} LU`);
    if (pass > 1 && worst <= 0.2) break;
    const table = levels.levelTable();
    const gains: Record<string, Array<[number, number]>> = { ...table.gains };
    // Renderings that share a gain (a key and pitch): the mean of their steps.
    const steps = new Map<string, { key: string; pitch: number; now: number; sum: number; n: number; lufs: number }>();
    for (const c of cases) {
      const m = results.get(c.key)!;
      if (!Number.isFinite(m.lufs)) continue;
      const v = c.job.voice;
      const mapping = v.engine.voiceMapping ?? v.engine.id;
      const key = levels.levelKey(mapping, v.engineVoice, v.language);
      const now = levels.voiceGainDb(mapping, v.engineVoice, v.language, v.pitch);
      const id = `${key}|${v.pitch}`;
      const prev = before.get(id);
      // dLUFS/dB: 1 where the limiter is idle, less where it takes part of the gain back.
      const slope = prev && Math.abs(now - prev.gain) > 0.05 ? Math.min(1, Math.max(0.25, (m.lufs - prev.lufs) / (now - prev.gain))) : 1;
      const step = (levels.TARGET_LUFS - m.lufs) / slope;
      const s = steps.get(id) ?? steps.set(id, { key, pitch: v.pitch, now, sum: 0, n: 0, lufs: 0 }).get(id)!;
      s.sum += step;
      s.lufs += m.lufs;
      s.n++;
    }
    for (const [id, s] of steps) {
      before.set(id, { gain: s.now, lufs: s.lufs / s.n });
      const gain = Math.round(Math.min(30, s.now + s.sum / s.n) * 100) / 100;
      gains[s.key] = [...(gains[s.key] ?? []).filter((r) => r[0] !== s.pitch), [s.pitch, gain] as [number, number]].sort(
        (a, b) => a[0] - b[0],
      );
    }
    const sorted = Object.fromEntries(
      Object.keys(gains)
        .sort()
        .map((k) => [k, gains[k]!]),
    );
    levels.setLevelTable({ targetLufs: levels.TARGET_LUFS, gains: sorted });
    writeFileSync(
      levels.LEVEL_TABLE_FILE,
      `${JSON.stringify({ $comment: 'Fixed gain (dB) per voice to reach targetLufs integrated (BS.1770): key engine voice key|engine voice|language -> [pitch semitones, gain dB]. Written by scripts/voice-levels.ts --calibrate from measured loudness; read by src/tts/levels.ts.', targetLufs: levels.TARGET_LUFS, gains: sorted }, null, 0).replace(/\],"/g, '],\n"')}\n`,
    );
    console.error(`wrote ${Object.keys(sorted).length} voices to ${levels.LEVEL_TABLE_FILE}`);
  }
} finally {
  await services.close();
  tmp.cleanup();
}
