// The worker tasks of the engines (src/workers/task-map.ts; handlers in src/tasks/table.ts).

import type { EspeakOutput, EspeakTask } from './espeak/espeak-worker.js';
import type { SherpaTtsTask } from './sherpa/sherpa-tts-worker.js';
import type { FliteLiveTask } from './flite/flite-live.js';

declare module '../workers/task-map.js' {
  interface TaskMap {
    /** eSpeak NG synthesis (the program build per worker; the library build for word timings). */
    'tts.espeak': { payload: EspeakTask; result: EspeakOutput };
    /** A Flite synthesis for a stream: its audio posted on a port as the vocoder makes it (flite-live.ts). */
    'tts.flite-live': { payload: FliteLiveTask; result: { samples: number } };
    /** sherpa-onnx neural TTS (Piper / Kokoro) when model files exist (src/engines/sherpa/). */
    'tts.sherpa': { payload: SherpaTtsTask; result: { samples: Int16Array; sampleRate: number } };
    /** The premium model's finishing chain (src/engines/studio/finishing.ts). */
    'audio.studio': { payload: { samples: Int16Array; sampleRate: number }; result: { samples: Int16Array; sampleRate: number } };
  }
}
