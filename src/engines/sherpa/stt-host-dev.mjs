// Worker entry of a sherpa-onnx recognition model when Parla runs from its TypeScript sources
// (tests, `tsx`): worker threads do not inherit tsx's module hooks, so register them here before
// loading the real entry. The compiled build (dist/) starts stt-host.js directly.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./stt-host.ts', import.meta.url).href);
