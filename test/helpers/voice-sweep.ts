// The catalogue sweep of issue 29 (items 1 and 2): every voice of every TTS model in every
// language the model serves, rendered as /tts/generate renders it (prepareTts + renderItems),
// measured for clipped samples, true peak and integrated loudness. Renderings with the same
// engine, engine voice, language, speed, pitch and text are made once (rapid-max is aura-prime;
// the eSpeak languages of aura-lite and aura-prime are the same engine). Used by the test
// (test/tts/voice-levels.test.ts), the calibration script and the bench.
import type { Services } from '../../src/services.js';
import type { AuthContext } from '../../src/accounts/auth-context.js';
import { TTS_MODELS, isFlashModel } from '../../src/catalog/catalog.js';
import { sampleText } from '../../src/tts/voice-previews.js';
import { prepareTts, type TtsJob } from '../../src/tts/prepare.js';
import { renderItems } from '../../src/tts/speak-items.js';
import { integratedLoudness } from '../../src/engines/studio/finishing.js';
import { truePeak } from '../../src/audio/dsp/level.js';
import type { PcmAudio } from '../../src/engines/engine.js';

export interface SweepCase {
  key: string;
  /** Every (model voice language) this rendering stands for. */
  labels: string[];
  models: string[];
  /** The catalogue ids of the voices it stands for (an Aura voice's name differs by language). */
  voiceIds: string[];
  job: TtsJob;
  text: string;
  /**
   * Key of the case whose rendering, put through the studio finishing, is this one's: aura-max
   * speaks through a studio engine that hands the request unchanged to an inner engine (the same
   * voice gain, read by the inner engine's key) and finishes its audio (`audio.studio`). The sweep
   * renders the inner case once and finishes a copy for this one.
   */
  finishedFrom?: string;
}

/**
 * One sentence per language, 2-3.5 s of speech (17-30 of BS.1770's 400 ms blocks, so its gates
 * have pauses to leave out and speech to keep): the issue's Spanish sentence; the second sentence of
 * the voice preview's greeting where there is one ("This is how I sound when I read your text.");
 * else the voice's name and three digits, which eSpeak reads in every language. The calibration
 * (scripts/voice-levels.ts) measures on the same sentence.
 */
export function sweepText(name: string, language: string): string {
  if (language.startsWith('es')) return 'Buenos días, el tren sale a las ocho del andén tres.';
  const s = sampleText(name, language);
  const cut = s.indexOf('. ');
  return s.startsWith(`${name}. `) || cut < 0 ? `${name}. 1, 2, 3.` : s.slice(cut + 2);
}

export function sweepCases(
  services: Services,
  auth: AuthContext,
  opts: {
    models?: readonly string[];
    languages?: readonly string[];
    speed?: number;
    pitch?: number;
    text?: (name: string, language: string) => string;
    /**
     * Only `cover` voices per language, turning through the voice list from one language to the
     * next, so that every language and every voice is rendered, in far fewer renderings than the
     * whole catalogue (the test suite's sample, decision #96). Flash voices each have one language:
     * all of them are kept.
     */
    cover?: number;
  } = {},
): SweepCase[] {
  const { catalog, registry, config } = services;
  const byKey = new Map<string, SweepCase>();
  for (const model of opts.models ?? TTS_MODELS) {
    const requests: Array<{ voice: string; language: string | undefined; id: string }> = [];
    if (isFlashModel(model)) {
      for (const v of catalog.data.flashVoices)
        if (catalog.languagesFor(model).some((l) => l.code === v.language) && (!opts.languages || opts.languages.includes(v.language)))
          requests.push({ voice: v.name, language: undefined, id: v.name });
    } else {
      const voices = catalog.data.auraVoices;
      const n = voices.length;
      const inCover = (li: number, vi: number) => opts.cover === undefined || (((vi - li * opts.cover) % n) + n) % n < opts.cover;
      catalog.languagesFor(model).forEach((l, li) => {
        if (!opts.languages || opts.languages.includes(l.code))
          voices.forEach((v, vi) => {
            if (inCover(li, vi)) requests.push({ voice: catalog.auraName(v, l.code), language: l.code, id: v.id });
          });
      });
    }
    for (const r of requests) {
      const prepare = (text: string) =>
        prepareTts(
          config,
          catalog,
          registry,
          auth,
          { text, voice: r.voice, model, language: r.language, speed: opts.speed ?? 1, pitch: opts.pitch },
          'generate',
        );
      const first = prepare('x');
      const text = (opts.text ?? sweepText)(first.voiceName, first.language);
      const job = prepare(text);
      const v = job.voice;
      const key = JSON.stringify([v.engine.id, v.engineVoice, v.language, v.speed, v.pitch, text]);
      const label = `${model} ${job.voiceName} (${job.language}, ${v.engine.id} ${v.engineVoice}${v.pitch ? ` ${v.pitch > 0 ? '+' : ''}${v.pitch} st` : ''})`;
      const had = byKey.get(key);
      if (had) {
        had.labels.push(label);
        if (!had.models.includes(model)) had.models.push(model);
        if (!had.voiceIds.includes(r.id)) had.voiceIds.push(r.id);
      } else byKey.set(key, { key, labels: [label], models: [model], voiceIds: [r.id], job, text });
    }
  }
  const cases = [...byKey.values()];
  for (const c of cases) {
    const v = c.job.voice;
    if (!v.engine.id.startsWith('studio-') || !v.engine.voiceMapping) continue;
    const inner = JSON.stringify([v.engine.voiceMapping, v.engineVoice, v.language, v.speed, v.pitch, c.text]);
    if (byKey.has(inner)) c.finishedFrom = inner;
  }
  return cases;
}

export interface Measured {
  /** Samples at full scale (sox's clipping: +-32767/-32768). */
  clipped: number;
  truePeakDb: number;
  lufs: number;
  seconds: number;
}

export function measurePcm(pcm: PcmAudio): Measured {
  const f = new Float32Array(pcm.samples.length);
  let clipped = 0;
  for (let i = 0; i < f.length; i++) {
    const s = pcm.samples[i]!;
    if (s >= 32767 || s <= -32767) clipped++;
    f[i] = s / 32768;
  }
  return {
    clipped,
    truePeakDb: 20 * Math.log10(truePeak(f)),
    lufs: integratedLoudness(f, pcm.sampleRate),
    seconds: pcm.samples.length / pcm.sampleRate,
  };
}

/** Renders and measures every case, `lanes` at a time (the pool's workers). */
export async function runSweep(
  services: Services,
  cases: SweepCase[],
  lanes: number,
  onEach?: (c: SweepCase, m: Measured) => void,
): Promise<Map<string, Measured>> {
  const out = new Map<string, Measured>();
  const keys = new Set(cases.map((c) => c.key));
  const finished = new Map<string, SweepCase[]>();
  for (const c of cases)
    if (c.finishedFrom && keys.has(c.finishedFrom))
      (finished.get(c.finishedFrom) ?? finished.set(c.finishedFrom, []).get(c.finishedFrom)!).push(c);
  const rendered = cases.filter((c) => !(c.finishedFrom && keys.has(c.finishedFrom)));
  let next = 0;
  const lane = async () => {
    while (next < rendered.length) {
      const c = rendered[next++]!;
      const pcm = await renderItems(services.pool, c.job.voice, c.job.items);
      if (!pcm) throw new Error(`${c.labels[0]}: no audio`);
      const m = measurePcm(pcm);
      out.set(c.key, m);
      onEach?.(c, m);
      for (const twin of finished.get(c.key) ?? []) {
        const done = await services.pool.run('audio.studio', { samples: pcm.samples.slice(), sampleRate: pcm.sampleRate });
        const tm = measurePcm(done);
        out.set(twin.key, tm);
        onEach?.(twin, tm);
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return out;
}
