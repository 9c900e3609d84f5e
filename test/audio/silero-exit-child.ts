// Run by silero-faults.test.ts as a process of its own: warms the Silero thread, then opens
// detectors (each a model load on the thread) and ends at once, the thread still loading them,
// either by its event loop running empty or (argv[2] === 'exit') through closeSileroThread() and
// process.exit(), as `parla serve` does on SIGTERM. It must exit with 0, never abort.
import { createFrameVad } from '../../src/audio/live-vad.js';
import { closeSileroThread } from '../../src/audio/silero-thread.js';

const first = await createFrameVad();
await first.process(new Int16Array(3200));
for (let i = 0; i < 6; i++) (await createFrameVad()).free();
await createFrameVad();
if (process.argv[2] === 'exit') {
  await closeSileroThread();
  process.exit(0);
}
