// Worker entry of a sherpa-onnx recognition model when Parla runs from its TypeScript sources
// (tests, `tsx`): worker threads do not inherit tsx's module hooks, so register them here before
// loading the real entry. The compiled build (dist/) starts stt-host.js directly.
// Under the test runner with dist/ built after every source change (PARLA_TEST_COMPILED), the
// compiled entry: the same code without tsx in this thread (decision #78, src/workers/worker-dev.mjs).
if (process.env.PARLA_TEST_COMPILED === '1') await import(new URL('../../../dist/src/engines/sherpa/stt-host.js', import.meta.url).href);
else {
  (await import('tsx/esm/api')).register();
  await import(new URL('./stt-host.ts', import.meta.url).href);
}
