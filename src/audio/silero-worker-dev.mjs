// Entry of the Silero VAD thread when Parla runs from its TypeScript sources (tests, tsx): worker
// threads do not inherit tsx's hooks. The compiled build loads silero-worker.js directly.
// Under the test runner with dist/ built after every source change (PARLA_TEST_COMPILED), the
// compiled entry: the same code without tsx in this thread (decision #78, src/workers/worker-dev.mjs).
if (process.env.PARLA_TEST_COMPILED === '1') await import(new URL('../../dist/src/audio/silero-worker.js', import.meta.url).href);
else {
  (await import('tsx/esm/api')).register();
  await import(new URL('./silero-worker.ts', import.meta.url).href);
}
