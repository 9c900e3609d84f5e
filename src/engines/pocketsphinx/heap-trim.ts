// Gives the C heap's free memory back to the system now and then (decision #79). glibc's malloc
// keeps what native code freed (PocketSphinx's decoders on libuv's threads, ONNX Runtime's sessions
// on the Silero and sherpa threads, the buffers of every worker thread) in per-thread arenas, and
// returns an arena's pages only from its top: after an attack of issue 30 the service stayed 200 MB
// and more above its level before, all of it free memory that one malloc_trim(0) gave back. The
// trim runs on a libuv thread (the native addon's trimHeap), never on the event loop, and costs
// about a millisecond when there is nothing to give back. Without the addon (not built) it does
// nothing: the memory is then returned only as glibc sees fit.

import { loadNative } from './binding.js';

export interface HeapTrimmer {
  /** Trims now; resolves true when memory was given back (false without the addon). */
  trim(): Promise<boolean>;
  stop(): void;
}

/** Trims every `everyMs` (0: never by itself; trim() still works). The timer never holds the process open. */
export function startHeapTrimmer(everyMs: number): HeapTrimmer {
  const loaded = loadNative();
  const native = 'native' in loaded && typeof loaded.native.trimHeap === 'function' ? loaded.native : null;
  let running: Promise<boolean> | null = null;
  const trim = (): Promise<boolean> => {
    if (!native) return Promise.resolve(false);
    // One at a time: a slow trim (a busy machine) is not stacked by the next tick.
    running ??= native.trimHeap!().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = everyMs > 0 && native ? setInterval(() => void trim().catch(() => undefined), everyMs) : null;
  timer?.unref();
  return {
    trim,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
