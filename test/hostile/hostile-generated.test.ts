// Issue 19's property-based part: a few thousand random bodies per run (fixed seed, so a failure
// reproduces) for /tts/generate (and .../with-timestamps), /tts/stream, the STT endpoints (multipart and raw), the
// dashboard's JSON API, the jobs API, and the OpenAI dialect's /v1/audio/* (JSON speech, multipart
// uploads; its error body is OpenAI's shape, check.ts). Every answer keeps the invariant of check.ts, and no single request
// delays the event loop past the bound. HOSTILE_RUNS scales the counts (1 = the defaults below,
// about 3,000 requests); HOSTILE_SEED picks another seed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  dashboardRequests,
  generateRequests,
  jobRequests,
  openAiSpeechRequests,
  openAiUploadRequests,
  sttMultipartRequests,
  sttRawRequests,
  streamRequests,
  timedGenerateRequests,
} from './generated.js';
import { Prober, SETTINGS, startHostileService, Tally, type HostileService } from './harness.js';
import { GENERATE, GENERATE_BASE, GENERATE_TIMED, timedAnswerProblem } from './corpus.js';
import { sendRaw } from './wire.js';

const SCALE = Number(process.env.HOSTILE_RUNS ?? 1);
const PLAN: Array<[string, fc.Arbitrary<Parameters<Prober['probe']>[0]>, number]> = [
  ['POST /api/v1/tts/generate', generateRequests, 900],
  ['POST /api/v1/tts/stream', streamRequests, 600],
  ['POST /api/v1/stt/* multipart', sttMultipartRequests, 600],
  ['POST /api/v1/stt/* raw bodies', sttRawRequests, 300],
  ['dashboard JSON API', dashboardRequests, 600],
  // Last: the seeds of the entries above stay what they were.
  ['POST /api/v1/tts/generate/with-timestamps', timedGenerateRequests, 300],
  ['POST /v1/audio/speech (OpenAI)', openAiSpeechRequests, 300],
  ['POST /v1/audio/transcriptions, /v1/audio/translations (OpenAI)', openAiUploadRequests, 300],
  ['jobs: POST, list, get, delete /api/v1/stt/jobs', jobRequests, 400],
];

let svc: HostileService;
let prober: Prober;
const tally = new Tally();

before(async () => {
  svc = await startHostileService();
  prober = new Prober(svc.port, svc.creds);
  const warm = {
    method: 'POST',
    path: GENERATE,
    headers: [
      ['X-API-Key', svc.creds.rich],
      ['Content-Type', 'application/json'],
    ] as Array<[string, string]>,
    body: Buffer.from(JSON.stringify(GENERATE_BASE)),
  };
  for (let i = 0; i < 3; i++) await sendRaw(svc.port, warm, 60_000);
});

after(async () => {
  prober?.close();
  console.log(tally.summary(`generated inputs (seed ${SETTINGS.seed})`));
  await svc?.close();
});

describe('hostile generated inputs', () => {
  PLAN.forEach(([label, arb, count], i) => {
    const runs = Math.max(1, Math.round(count * SCALE));
    test(`${label}: ${runs} random bodies keep the invariant`, async () => {
      const failures: string[] = [];
      for (const req of fc.sample(arb, { seed: SETTINGS.seed + i, numRuns: runs })) {
        const m = await prober.probe(req, req.path === GENERATE_TIMED ? { check: timedAnswerProblem } : undefined);
        tally.record(label, m);
        if (m.problems.length)
          failures.push(
            `${req.method} ${req.path} as ${req.who} body ${JSON.stringify((req.body ?? Buffer.alloc(0)).subarray(0, 300).toString('latin1'))}: ${m.problems.join('; ')}`,
          );
      }
      assert.equal(failures.length, 0, `${failures.length} of ${runs} failed; first ones:\n${failures.slice(0, 8).join('\n')}`);
    });
  });
});
