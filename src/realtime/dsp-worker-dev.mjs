// Entry of the resampling thread when Parla runs from its TypeScript sources (tests, tsx): worker
// threads do not inherit tsx's hooks. The compiled build loads dsp-worker.js directly.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./dsp-worker.ts', import.meta.url).href);
