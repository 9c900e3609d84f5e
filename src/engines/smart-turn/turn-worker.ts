// The turn-model thread: the Smart Turn model (src/models/smart-turn.ts) and its feature
// extraction (tens of ms of FFTs per call) run here, never on the event loop. Requests are
// answered in order, one at a time.

import { parentPort, workerData } from 'node:worker_threads';
import { loadSmartTurn } from '../../models/smart-turn.js';

export type TurnRequest = { seq: number; audio: Float32Array };
export type TurnReply = { seq: number; probability: number } | { seq: number; error: string };

// Loaded, then asked once about silence: the first answer JIT-compiles the features and the model's
// kernels (several times a warm answer), which the first real pause should not wait for.
const model = loadSmartTurn((workerData as { model: string }).model).then(async (m) => {
  await m.predict(new Float32Array(16000));
  return m;
});
// A model that does not load answers every question with why (the turn layer then decides
// without it), rather than ending the thread at once.
model.catch(() => undefined);
let chain: Promise<void> = Promise.resolve();

parentPort!.on('message', (m: TurnRequest) => {
  chain = chain.then(async () => {
    try {
      const probability = await (await model).predict(m.audio);
      parentPort!.postMessage({ seq: m.seq, probability } satisfies TurnReply);
    } catch (err) {
      parentPort!.postMessage({ seq: m.seq, error: (err as Error).message } satisfies TurnReply);
    }
  });
});
