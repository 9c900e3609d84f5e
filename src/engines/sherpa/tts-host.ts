// Worker-thread entry that holds one loaded sherpa-onnx voice (Piper, VITS, Kokoro) under the model
// lifecycle: the model loads when the thread starts and goes when the thread ends (sherpa-onnx-node
// has no call that frees a model). Syntheses run one after another, as the voice is not meant to
// generate concurrently; the main side bounds how many wait (tts-model-host.ts).

import { parentPort, workerData } from 'node:worker_threads';
import type { SherpaTtsModel } from './models.js';
import { prepareSherpa, synthesizeSherpa, type SherpaTtsTask } from './sherpa-tts-worker.js';

export type TtsHostRequest = { id: number; task: Omit<SherpaTtsTask, 'model'> };
export type TtsHostReply =
  | { id: number; ok: true; value: { samples: Int16Array; sampleRate: number } }
  | { id: number; ok: false; message: string };

const model = workerData as SherpaTtsModel;
const port = parentPort!;

try {
  await prepareSherpa(model);
  let tail: Promise<unknown> = Promise.resolve();
  port.on('message', (req: TtsHostRequest) => {
    const next = tail.then(() => synthesizeSherpa({ ...req.task, model }));
    tail = next.catch(() => undefined);
    next.then(
      (value) => port.postMessage({ id: req.id, ok: true, value } satisfies TtsHostReply, [value.samples.buffer as ArrayBuffer]),
      (err: unknown) =>
        port.postMessage({ id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) } satisfies TtsHostReply),
    );
  });
  port.postMessage({ ready: true });
} catch (err) {
  port.postMessage({ ready: false, message: (err as Error).message });
}
