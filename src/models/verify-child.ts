// Child-process entry of the loading check: loads one model with sherpa-onnx and runs it once on the
// built-in sample, then prints its figures on one stdout line. It runs in its own process because
// sherpa-onnx ends the whole process from native code on a malformed model (exit 255, or an abort),
// where no JavaScript handler can catch it: the parent reads an exit like that as "the model failed".
// Usage: node verify-child.js '{"dir": ..., "format": ..., "files": {...}, "seconds": 2}'

import { performance } from 'node:perf_hooks';
import { loadSherpa, sherpaLoad, type OfflineRecognizer, type OfflineTts, type OnlineRecognizer } from './sherpa-config.js';
import { SAMPLE_SENTENCE, speechLikeSamples } from './sample.js';
import type { ProbedModel } from './probe.js';

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

try {
  const task = JSON.parse(process.argv[2] ?? '') as ChildTask;
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(run(task))}\n`);
} catch (err) {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ok: false, reason: (err as Error).message })}\n`);
  process.exitCode = 1;
}
