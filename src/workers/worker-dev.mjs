// Worker entry when Parla runs from its TypeScript sources (tests, `tsx`): worker threads do not
// inherit tsx's module hooks, so register them here before loading the real worker. The compiled
// build (dist/) loads worker.js directly and never uses this file.
import { register } from 'tsx/esm/api';

register();
const worker = await import(new URL('./worker.ts', import.meta.url).href);
export const runTask = worker.runTask;
