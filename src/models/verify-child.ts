// Child-process entry of the loading check: loads one model with sherpa-onnx (a turn model with
// onnxruntime-web, src/models/smart-turn.ts) and runs it once on the
// built-in sample, then prints its figures on one stdout line. It runs in its own process because
// sherpa-onnx ends the whole process from native code on a malformed model (exit 255, or an abort),
// where no JavaScript handler can catch it: the parent reads an exit like that as "the model failed".
// Usage: node verify-child.js '{"dir": ..., "format": ..., "files": {...}, "seconds": 2}'

import { performance } from 'node:perf_hooks';
import { loadSherpa, sherpaLoad, type OfflineRecognizer, type OfflineTts, type OnlineRecognizer } from './sherpa-config.js';
import { SAMPLE_SENTENCE, speechLikeSamples } from './sample.js';
import type { ProbedModel } from './probe.js';
import { loadSmartTurn } from './smart-turn.js';
import { checkEmbeddingModel, checkSegmentationModel } from './speaker-check.js';
import path from 'node:path';

export const RESULT_PREFIX = 'PARLA_MODEL_CHECK ';

interface ChildTask {
  dir: string;
  format: ProbedModel['format'];
  files: ProbedModel['files'];
  seconds: number;
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

function run(task: ChildTask): Record<string, unknown> {
  const sherpa = loadSherpa();
  const rssBefore = process.memoryUsage().rss;
  const load = sherpaLoad(task.dir, task);
  const t0 = performance.now();
  const loaded = new sherpa[load.api](load.config);
  const loadMs = performance.now() - t0;
  const rssLoaded = process.memoryUsage().rss;
  const t1 = performance.now();
  let audioSeconds: number;
  let output: string;
  if (load.api === 'OfflineTts') {
    const tts = loaded as OfflineTts;
    const audio = tts.generate({ text: SAMPLE_SENTENCE, sid: 0, speed: 1 });
    audioSeconds = audio.samples.length / audio.sampleRate;
    output = `${audio.samples.length} samples at ${audio.sampleRate} Hz`;
    if (audio.samples.length === 0) throw new Error('the voice produced no audio');
  } else {
    const samples = speechLikeSamples(task.seconds);
    audioSeconds = task.seconds;
    if (load.api === 'OnlineRecognizer') {
      const rec = loaded as OnlineRecognizer;
      const stream = rec.createStream();
      for (let i = 0; i < samples.length; i += 1600) {
        stream.acceptWaveform({ samples: samples.subarray(i, i + 1600), sampleRate: 16000 });
        while (rec.isReady(stream)) rec.decode(stream);
      }
      // Tail padding: a streaming model decodes a chunk only once frames past it have arrived.
      stream.acceptWaveform({ samples: new Float32Array(8000), sampleRate: 16000 });
      stream.inputFinished();
      while (rec.isReady(stream)) rec.decode(stream);
      output = rec.getResult(stream).text;
    } else {
      const rec = loaded as OfflineRecognizer;
      const stream = rec.createStream();
      stream.acceptWaveform({ samples, sampleRate: 16000 });
      rec.decode(stream);
      output = rec.getResult(stream).text;
    }
  }
  const runMs = performance.now() - t1;
  return {
    ok: true,
    sherpaVersion: sherpa.version ?? null,
    loadMs: Math.round(loadMs),
    runMs: Math.round(runMs),
    audioSeconds: Math.round(audioSeconds * 100) / 100,
    // Three significant digits: tiny test models run at a few ten-thousandths of real time.
    rtf: audioSeconds > 0 ? Number((runMs / 1000 / audioSeconds).toPrecision(3)) : null,
    rssBeforeMB: mb(rssBefore),
    rssLoadedMB: mb(rssLoaded),
    peakRssMB: mb(process.resourceUsage().maxRSS * 1024),
    outputChars: output.length,
  };
}

/** A turn model: onnxruntime loads it, its interface is checked, and it rates the sample once. */
async function runTurn(task: ChildTask): Promise<Record<string, unknown>> {
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const model = await loadSmartTurn(path.join(task.dir, task.files.model ?? ''));
  const loadMs = performance.now() - t0;
  const rssLoaded = process.memoryUsage().rss;
  const t1 = performance.now();
  const probability = await model.predict(speechLikeSamples(task.seconds));
  const runMs = performance.now() - t1;
  return {
    ok: true,
    sherpaVersion: null,
    loadMs: Math.round(loadMs),
    runMs: Math.round(runMs),
    audioSeconds: task.seconds,
    // One decision per pause, over the last 8 s: the time per call is the figure, not a ratio.
    rtf: null,
    rssBeforeMB: mb(rssBefore),
    rssLoadedMB: mb(rssLoaded),
    peakRssMB: mb(process.resourceUsage().maxRSS * 1024),
    probability: Number(probability.toFixed(4)),
  };
}

/** A speaker model: described once, the sample's length as its audio (src/models/speaker-check.ts). */
async function runSpeaker(task: ChildTask): Promise<Record<string, unknown>> {
  const rssBefore = process.memoryUsage().rss;
  const file = path.join(task.dir, task.files.model ?? '');
  const samples = speechLikeSamples(task.seconds);
  const t0 = performance.now();
  const { output } = task.format === 'speaker-embedding' ? checkEmbeddingModel(file, samples) : await checkSegmentationModel(file, samples);
  const runMs = performance.now() - t0;
  return {
    ok: true,
    sherpaVersion: task.format === 'speaker-embedding' ? (loadSherpa().version ?? null) : null,
    // Loading and the one run are timed together: neither API separates them.
    loadMs: 0,
    runMs: Math.round(runMs),
    audioSeconds: task.seconds,
    // A segmentation model ran one whole window (10 s, the sample padded): no ratio to the sample.
    rtf: task.format === 'speaker-embedding' ? Number((runMs / 1000 / task.seconds).toPrecision(3)) : null,
    rssBeforeMB: mb(rssBefore),
    rssLoadedMB: mb(process.memoryUsage().rss),
    peakRssMB: mb(process.resourceUsage().maxRSS * 1024),
    output,
  };
}

try {
  const task = JSON.parse(process.argv[2] ?? '') as ChildTask;
  const result =
    task.format === 'smart-turn'
      ? await runTurn(task)
      : task.format === 'speaker-embedding' || task.format === 'speaker-segmentation'
        ? await runSpeaker(task)
        : run(task);
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
} catch (err) {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: false, reason: (err as Error).message })}\n`);
  process.exitCode = 1;
}
