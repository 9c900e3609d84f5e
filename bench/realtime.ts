// Real-time benchmarks (issue 5): recorded utterances (the LibriVox recordings of Debian's
// pocketsphinx-testdata) streamed at real-time pace in 20 ms frames over wss, each followed by
// 1.5 s of silence:
//  - end of speech -> the first final result after it; speech start -> the first interim result.
//    Speech start and end are read from the audio itself (energy: see speechBounds), not from the
//    recognizer's word times.
//  - how many simultaneous streams the machine sustains: N streams at once (each a different
//    recording, starting together), the largest N whose every final comes within 1 s of its end
//    of speech.
// Run: node --import tsx bench/realtime.ts
//   RUNS (default 2: passes over the 5 recordings per endpointing value), ENDPOINTING (ms, default
//   10,100,200,500; 10 is the service's default, as on Deepgram), STREAMS_ENDPOINTING (default 200), MODEL (default
//   cipher-fast), STREAMS (steps, default 1,2,3,4,6,8).
import { cpus, loadavg } from 'node:os';
import { median, startBenchServer, table } from './lib.js';
import { liveRecordings, liveStream, realtimePort, simultaneous } from './measure/live.js';
import { REALTIME_DEFAULTS } from '../src/realtime/params.js';

const RUNS = Number(process.env.RUNS ?? 2);
/** Endpointing values (ms of silence that end an utterance) for the single-stream latencies. */
const ENDPOINTINGS = (process.env.ENDPOINTING ?? '10,100,200,500').split(',');
/** Endpointing for the simultaneous streams: the headroom to 1 s is what processing may use. */
const STREAMS_ENDPOINTING = process.env.STREAMS_ENDPOINTING ?? '200';
const MODEL = process.env.MODEL ?? 'cipher-fast';
const STEPS = (process.env.STREAMS ?? '1,2,3,4,6,8').split(',').map(Number);

const recordings = liveRecordings();
console.log(
  `speech in the recordings (s): ${recordings.map((r) => `${r.name} ${r.speechStart.toFixed(2)}-${r.speechEnd.toFixed(2)} of ${(r.pcm.length / 16000).toFixed(2)}`).join(', ')}`,
);

// Each live stream keeps a recognizer for its whole life: enough of them for the largest step.
const server = await startBenchServer({ PARLA_STT_DECODERS: String(Math.max(...STEPS)) });
const port = await realtimePort(server);
const stream = (rec: (typeof recordings)[number], endpointing: string) => liveStream(server, port, rec, endpointing, MODEL);

try {
  await stream(recordings[0]!, STREAMS_ENDPOINTING); // warm-up
  const loads: number[] = [];
  const start: number[] = [];
  const rows: Array<Record<string, string | number>> = [];
  for (const endpointing of ENDPOINTINGS) {
    const end: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      for (const rec of recordings) {
        loads.push(loadavg()[0]!);
        const r = await stream(rec, endpointing);
        end.push(r.endToFinal);
        start.push(r.startToInterim);
      }
    }
    rows.push({
      measure: `end of speech -> final result, endpointing ${endpointing} ms${Number(endpointing) === REALTIME_DEFAULTS.endpointing ? ' (the default)' : ''}`,
      median_ms: median(end),
      max_ms: Math.max(...end),
      goal: '< 300 ms',
      met: median(end) < 300 ? 'met' : 'not met',
    });
  }
  rows.push({
    measure: 'speech start -> first interim result',
    median_ms: median(start),
    max_ms: Math.max(...start),
    goal: '< 500 ms',
    met: median(start) < 500 ? 'met' : 'not met',
  });
  let sustained = 0;
  let allKept = true;
  for (const n of STEPS) {
    loads.push(loadavg()[0]!);
    const results = await simultaneous(server, port, recordings, n, STREAMS_ENDPOINTING, MODEL);
    const worst = Math.max(...results.map((r) => r.endToFinal));
    // Sustained: this step and every smaller one kept every final within 1 s.
    if (worst < 1000 && allKept) sustained = n;
    else allKept = false;
    rows.push({
      measure: `${n} simultaneous stream${n === 1 ? '' : 's'} (endpointing ${STREAMS_ENDPOINTING} ms): end of speech -> final`,
      median_ms: median(results.map((r) => r.endToFinal)),
      max_ms: worst,
      goal: '< 1000 ms',
      met: worst < 1000 ? 'met' : 'not met',
    });
  }
  rows.push({
    measure: 'simultaneous streams sustained (every step up to it: every final < 1 s)',
    median_ms: sustained,
    max_ms: '',
    goal: '',
    met: '',
  });
  console.log(
    `Real-time benchmarks, ${new Date().toISOString()}, model ${MODEL}, ${recordings.length} LibriVox recordings x ${RUNS} runs per endpointing value, ` +
      `load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} on ${cpus().length} cores\n`,
  );
  console.log(table(rows));
} finally {
  await server.stop();
}
