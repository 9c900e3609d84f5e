// One PocketSphinx decoder with a promise queue: calls on a decoder run strictly one after another
// (the library is not thread-safe), while different decoders run in parallel on the libuv pool.

import { EngineError } from '../engine.js';
import type { NativeDecoder, NativeModule, NativeUtterance } from './binding.js';

export class PsDecoder {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly native: NativeDecoder;

  constructor(
    mod: NativeModule,
    readonly args: string[],
    readonly profile: string,
  ) {
    this.native = new mod.Decoder(args);
  }

  /** Runs fn after every call queued before it; library failures become EngineError (argument errors stay TypeError/RangeError). */
  run<T>(fn: (d: NativeDecoder) => Promise<T> | T): Promise<T> {
    const next = this.tail.then(async () => {
      try {
        return await fn(this.native);
      } catch (err) {
        throw err instanceof EngineError || err instanceof TypeError || err instanceof RangeError
          ? err
          : new EngineError('pocketsphinx', (err as Error).message, false, { cause: err });
      }
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  init(): Promise<void> {
    return this.run((d) => d.init());
  }

  decodeContinuous(samples: Int16Array): Promise<NativeUtterance[]> {
    return this.run((d) => d.decodeContinuous(samples));
  }
}
