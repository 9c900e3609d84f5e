// The worker tasks of the engines (src/workers/task-map.ts; handlers in src/tasks/table.ts).

import type { EspeakOutput, EspeakTask } from './espeak/espeak-worker.js';
import type { SherpaTtsTask } from './sherpa/sherpa-tts-worker.js';

declare module '../workers/task-map.js' {
  interface TaskMap {
    /** eSpeak NG synthesis (the program build per worker; the library build for word timings). */
    'tts.espeak': { payload: EspeakTask; result: EspeakOutput };
    /** sherpa-onnx neural TTS (Piper / Kokoro) when model files exist (src/engines/sherpa/). */
    'tts.sherpa': { payload: SherpaTtsTask; result: { samples: Int16Array; sampleRate: number } };
    /** The premium model's finishing chain (src/engines/studio/finishing.ts). */
    'audio.studio': { payload: { samples: Int16Array; sampleRate: number }; result: { samples: Int16Array; sampleRate: number } };
  }
}
