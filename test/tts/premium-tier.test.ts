// Issue 29 item 5: the premium tier is never worse. The voices that lost most on aura-max (women on
// Festival's HTS voice with a raised pitch, the issue's Aria at +4 semitones, a man on Flite through
// the finishing chain) rendered as /tts/generate renders them on aura-max and on aura-prime, the
// same sentences, each recognized by the service's recognizer (PocketSphinx, cipher-fast's
// profile) at 16 kHz: over all their words aura-max may be at most 1 point worse, and no voice
// more than a few points (the shift after synthesis this replaced cost 12-16 points). This guards
// against a loss that large; the goal itself is judged on sixty sentences, where one set of twenty
// moves a voice by up to 22 points (bench/premium-tier.ts, decision #107). Synthesis and
// recognition are deterministic here: no timing and no chance is involved.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import type { AuthContext } from '../../src/accounts/auth-context.js';
import { prepareTts } from '../../src/tts/prepare.js';
import { renderItems } from '../../src/tts/speak-items.js';
import { resampleInt16 } from '../../src/audio/resample.js';
import { PocketSphinxEngine } from '../../src/engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from '../../src/engines/pocketsphinx/warmup.js';
import { words, wordErrorRate } from '../helpers/speech.js';

const SENTENCES = [
  'Please send the quarterly report to the finance team before noon.',
  'She bought fresh bread and cheese at the market this morning.',
  'Turn left at the next corner and park behind the library.',
  'The children planted tomatoes in the garden last spring.',
];

/** Voice and request pitch: Ruby (HTS +4 st), Olivia (+3), Emma (+2), Aria asked for +4, Jasper (Flite rms, finished). */
const CASES: Array<[string, number]> = [
  ['Ruby', 0],
  ['Olivia', 0],
  ['Emma', 0],
  ['Aria', 4],
  ['Jasper', 0],
];

let t: TestApp;
let auth: AuthContext;
let recognizer: PocketSphinxEngine;

before(async () => {
  t = await createTestApp({ PARLA_WORKERS: '2' });
  const acct = await createTestAccount(t.services, { plan: 'enterprise', credits: 10_000_000 });
  auth = { account: (await t.services.store.getAccount(acct.accountId))!, key: (await t.services.store.getKey(acct.keyId))!, mode: 'live' };
  recognizer = new PocketSphinxEngine({ decodersPerProfile: 1, boostDecodersPerProfile: 0, profiles: ['fast'], warmup: warmupUtterance() });
  await recognizer.whenReady();
});
after(() => t.close());

/** Word errors of one voice on one model over SENTENCES (rendered as /tts/generate renders it). */
async function errors(model: string, voice: string, pitch: number): Promise<{ errors: number; words: number; engine: string }> {
  let errs = 0;
  let total = 0;
  let engine = '';
  for (const text of SENTENCES) {
    const job = prepareTts(
      t.services.config,
      t.services.catalog,
      t.services.registry,
      auth,
      { text, voice, model, language: 'en-US', speed: 1, pitch },
      'generate',
    );
    engine = job.voice.engine.id;
    const pcm = await renderItems(t.services.pool, job.voice, job.items);
    assert.ok(pcm, `${model} ${voice}: no audio`);
    const at16k = pcm.sampleRate === 16000 ? pcm.samples : resampleInt16(pcm.samples, pcm.sampleRate, 16000);
    const r = await recognizer.recognize(at16k, { language: 'en-US', profile: 'fast' });
    const heard = r.utterances.map((u) => u.words.map((w) => w.word).join(' ')).join(' ');
    const n = words(text).length;
    errs += Math.round(wordErrorRate(text, heard) * n);
    total += n;
  }
  return { errors: errs, words: total, engine };
}

test('aura-max is at most 1 point worse than aura-prime over the voices it lost on, and no voice far worse', async () => {
  let prime = 0;
  let max = 0;
  let total = 0;
  const lines: string[] = [];
  for (const [voice, pitch] of CASES) {
    const p = await errors('aura-prime', voice, pitch);
    const m = await errors('aura-max', voice, pitch);
    prime += p.errors;
    max += m.errors;
    total += p.words;
    const diff = (100 * (m.errors - p.errors)) / p.words;
    lines.push(
      `${voice}${pitch ? ` +${pitch} st` : ''}: aura-prime ${p.errors}/${p.words} (${p.engine}), aura-max ${m.errors}/${m.words} (${m.engine})`,
    );
    console.log(lines.at(-1));
    // One sentence badly heard is ~10 words of 42; the shift after synthesis lost 12-16 points.
    assert.ok(diff <= 6, `${lines.at(-1)}: ${diff.toFixed(1)} points worse`);
  }
  // The women on aura-max speak with Festival's HTS voice, the man with Flite, both finished.
  assert.ok(lines[0]!.includes('studio-festival') && lines[4]!.includes('studio-flite'), lines.join('; '));
  const points = (100 * (max - prime)) / total;
  assert.ok(
    points <= 1,
    `aura-max ${max}/${total} against aura-prime ${prime}/${total}: ${points.toFixed(1)} points worse; ${lines.join('; ')}`,
  );
});
