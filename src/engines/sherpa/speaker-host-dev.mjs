// Worker entry of the speaker models when Parla runs from its TypeScript sources (tests, `tsx`):
// worker threads do not inherit tsx's module hooks, so register them here before loading the real
// entry. The compiled build (dist/) starts speaker-host.js directly.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./speaker-host.ts', import.meta.url).href);
