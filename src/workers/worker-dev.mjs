// Worker entry when Parla runs from its TypeScript sources (tests, `tsx`): worker threads do not
// inherit tsx's module hooks, so register them here before loading the real worker. The compiled
// build (dist/) loads worker.js directly and never uses this file.
// Under the test runner with dist/ built after every source change (PARLA_TEST_COMPILED,
// test/helpers/parla-command.ts), it loads the compiled worker and the compiled twin of the task
// table the pool names: the same code, without tsx compiling and hooking every module in every
// thread of every test file (decision #78).
import { Piscina } from 'piscina';

const src = new URL('../', import.meta.url).href;
const data = Piscina.workerData;
let worker;
// A task table outside src/ (none today) has no compiled twin: that pool stays on tsx.
if (process.env.PARLA_TEST_COMPILED === '1' && data.tasks.startsWith(src)) {
  data.tasks = new URL(`../../dist/src/${data.tasks.slice(src.length).replace(/\.ts$/, '.js')}`, import.meta.url).href;
  worker = await import(new URL('../../dist/src/workers/worker.js', import.meta.url).href);
} else {
  (await import('tsx/esm/api')).register();
  worker = await import(new URL('./worker.ts', import.meta.url).href);
}
export const runTask = worker.runTask;
