// The worker tasks of text-to-speech (src/workers/task-map.ts; handlers in src/tasks/table.ts).

import type { FinishPayload } from './finish-task.js';
import type { EncodePayload } from './encode-task.js';

declare module '../workers/task-map.js' {
  interface TaskMap {
    /** Whisper transform of a voice's own audio (src/tts/dsp/whisper.ts). */
    'tts.whisper': { payload: { samples: Int16Array; sampleRate: number; seed?: number }; result: Int16Array };
    /** Join segments with silences, resample, encode (src/tts/finish-task.ts). */
    'tts.finish': { payload: FinishPayload; result: Uint8Array };
    /** Join, resample, encode in one of Deepgram's speak encodings (src/tts/encode-task.ts). */
    'tts.encode': { payload: EncodePayload; result: Uint8Array };
  }
}
