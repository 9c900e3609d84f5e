// Language handling and DC offsets of Parla's TTS, in process (services, no HTTP):
// 1. Japanese, Chinese and Korean: seconds of audio for text in kanji / hanzi / hanja before (the
//    engine given the text as it is: what the service did without readings) and after (the
//    service's rendering path, readings on), beside the same sentence spelt in kana / pinyin /
//    hangul; plus what the readings thread costs (first conversion: thread start and dictionary
//    load; warm conversions; process RSS).
// 2. The DC offset (mean, fraction of full scale) of every voice of every TTS model on a few
//    words, rendered as /tts/generate renders them (Aura voices in English and German).
// Run: node --import tsx bench/languages.ts   (DC_ALL=1 prints every voice, not only the summary)
import { createServices } from '../src/services.js';
import { testConfig, tempDir } from '../test/helpers/env.js';
import { createTestAccount } from '../test/helpers/app.js';
import type { AuthContext } from '../src/accounts/auth-context.js';
import { TTS_MODELS, isFlashModel } from '../src/catalog/catalog.js';
import { sampleText } from '../src/tts/voice-previews.js';
import { prepareTts, type TtsJob } from '../src/tts/prepare.js';
import { renderItems } from '../src/tts/speak-items.js';
import { dcOffset } from '../src/audio/dsp/dc-block.js';
import { closeReadings, toReadings } from '../src/tts/readings/readings.js';
import { table } from './lib.js';

const tmp = tempDir('parla-bench-');
const services = await createServices(
  testConfig({ PARLA_WORKERS: '2' }, tmp.dir),
  (await import('pino')).pino({ level: 'silent' }) as never,
);
const acct = await createTestAccount(services, { plan: 'enterprise' });
const auth: AuthContext = {
  account: (await services.store.getAccount(acct.accountId))!,
  key: (await services.store.getKey(acct.keyId))!,
  mode: 'live',
};
const { catalog, registry } = services;

const prepare = (text: string, voice: string, model: string, language: string | undefined): TtsJob =>
  prepareTts(services.config, catalog, registry, auth, { text, voice, model, language, speed: 1, pitch: undefined }, 'generate');

/** Seconds of audio the service renders for the text (readings on). */
async function after(job: TtsJob): Promise<number> {
  const pcm = await renderItems(services.pool, job.voice, job.items);
  return pcm ? pcm.samples.length / pcm.sampleRate : 0;
}

/** Seconds of audio the engine makes of the text as it is (readings off), same voice parameters. */
async function before(job: TtsJob, text: string): Promise<number> {
  const v = job.voice;
  const r = await v.engine.synthesize({
    text,
    engineVoice: v.engineVoice,
    language: v.language,
    speed: v.speed,
    pitch: v.pitch,
    style: 'normal',
  });
  return r.samples.length / r.sampleRate;
}

// ---------------------------------------------------------------- 1. CJK
const CJK: Array<{ voice: string; model: string; language?: string; text: string; spelling: string }> = [
  { voice: 'Paige', model: 'rapid-flash', text: '会議は九時に始まります。', spelling: 'かいぎはくじにはじまります。' },
  { voice: 'Paige', model: 'rapid-flash', text: '東京駅で友達に会いました。', spelling: 'とうきょうえきでともだちにあいました。' },
  { voice: 'Paige', model: 'rapid-flash', text: '今日は天気がいいですね。', spelling: 'きょうはてんきがいいですね。' },
  {
    voice: 'Paige',
    model: 'rapid-flash',
    text: '明日の午後三時から東京本社の第一会議室で新しい製品の発表会を開催します。',
    spelling: 'あしたのごごさんじからとうきょうほんしゃのだいいちかいぎしつであたらしいせいひんのはっぴょうかいをかいさいします。',
  },
  { voice: 'Yui', model: 'aura-prime', language: 'ja', text: '会議は九時に始まります。', spelling: 'かいぎはくじにはじまります。' },
  { voice: 'Wei', model: 'aura-lite', language: 'zh', text: '今天天气很好。', spelling: 'jin1 tian1 tian1 qi4 hen3 hao3.' },
  {
    voice: 'Wei',
    model: 'aura-lite',
    language: 'zh',
    text: '我们明天去北京开会。',
    spelling: 'wo3 men5 ming2 tian1 qu4 bei3 jing1 kai1 hui4.',
  },
  {
    voice: 'Wei',
    model: 'aura-lite',
    language: 'zh',
    text: '我們明天去北京開會。',
    spelling: 'wo3 men5 ming2 tian1 qu4 bei3 jing1 kai1 hui4.',
  },
  { voice: 'Quinn', model: 'rapid-flash', text: '韓國語를 공부합니다.', spelling: '한국어를 공부합니다.' },
  { voice: 'Quinn', model: 'rapid-flash', text: '大韓民國은 民主共和國이다.', spelling: '대한민국은 민주공화국이다.' },
];

const rssBefore = process.memoryUsage().rss;
let t0 = performance.now();
await toReadings('ja', '会議');
const firstMs = performance.now() - t0;
const rssAfter = process.memoryUsage().rss;
t0 = performance.now();
const warmN = 50;
for (let i = 0; i < warmN; i++) await toReadings('ja', CJK[3]!.text);
const warmMs = (performance.now() - t0) / warmN;
t0 = performance.now();
await toReadings('ko', CJK[9]!.text);
const koFirstMs = performance.now() - t0;

const rows: Array<Record<string, string>> = [];
for (const c of CJK) {
  const job = prepare(c.text, c.voice, c.model, c.language);
  const ref = await after(prepare(c.spelling, c.voice, c.model, c.language));
  const [b, a] = [await before(job, c.text), await after(job)];
  rows.push({
    text: c.text,
    voice: `${c.model} ${c.voice} (${job.language})`,
    'before s': b.toFixed(2),
    'after s': a.toFixed(2),
    'spelt in kana/pinyin/hangul s': ref.toFixed(2),
    'before/spelt': (b / ref).toFixed(2),
    'after/spelt': (a / ref).toFixed(2),
  });
}
console.log('\n## Japanese, Chinese, Korean: seconds of audio (before = readings off, after = the service now)\n');
console.log(table(rows));
console.log(
  `\nreadings thread: first Japanese conversion ${firstMs.toFixed(0)} ms (thread start + dictionary), then ${warmMs.toFixed(2)} ms per 36-character sentence; first Korean ${koFirstMs.toFixed(0)} ms; process RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> ${(rssAfter / 2 ** 20).toFixed(0)} MiB`,
);
await closeReadings();

// ---------------------------------------------------------------- 2. DC offsets
function shortText(name: string, language: string): string {
  const s = sampleText(name, language);
  const cut = s.indexOf('. ');
  return cut > 0 && cut < 40 ? s.slice(0, cut + 1) : `${name}. 1, 2, 3.`;
}
const requests: Array<{ model: string; voice: string; language: string | undefined }> = [];
for (const model of TTS_MODELS) {
  if (isFlashModel(model))
    for (const v of catalog.data.flashVoices)
      if (catalog.languagesFor(model).some((l) => l.code === v.language)) requests.push({ model, voice: v.name, language: undefined });
      else
        for (const language of ['en-US', 'de'])
          for (const v of catalog.data.auraVoices) requests.push({ model, voice: catalog.auraName(v, language), language });
}
const dcRows: Array<{ row: Record<string, string>; dc: number }> = [];
const seen = new Map<string, number>();
for (const r of requests) {
  const first = prepare('x', r.voice, r.model, r.language);
  const job = prepare(shortText(first.voiceName, first.language), r.voice, r.model, r.language);
  const key = JSON.stringify([job.voice.engine.id, job.voice.engineVoice, job.language, job.voice.speed, job.voice.pitch, job.items]);
  let dc = seen.get(key);
  if (dc === undefined) {
    const pcm = await renderItems(services.pool, job.voice, job.items);
    dc = pcm ? dcOffset(pcm.samples) : 0;
    seen.set(key, dc);
  }
  dcRows.push({
    row: {
      model: r.model,
      voice: job.voiceName,
      language: job.language,
      'engine voice': `${job.voice.engine.id} ${job.voice.engineVoice}`,
      DC: dc.toFixed(4),
    },
    dc,
  });
}
const worst = [...dcRows].sort((a, b) => Math.abs(b.dc) - Math.abs(a.dc));
console.log(
  `\n## DC offset (mean, fraction of full scale) of every voice of every model: ${dcRows.length} voice/model/language renderings, ${seen.size} distinct\n`,
);
console.log(
  `largest |DC|: ${Math.abs(worst[0]!.dc).toFixed(4)}; renderings with |DC| >= 0.005: ${dcRows.filter((d) => Math.abs(d.dc) >= 0.005).length}\n`,
);
console.log(table((process.env.DC_ALL ? dcRows : worst.slice(0, 12)).map((d) => d.row)));

await services.close();
tmp.cleanup();
