// The worker tasks of audio processing (src/workers/task-map.ts; handlers in src/tasks/table.ts).
// Uploads are not decoded here but in decoder processes (src/audio/decoder/, decision #42).

import type { VoiceOutputTask } from './dsp/voice-output.js';

declare module '../workers/task-map.js' {
  interface TaskMap {
    /** Pitch shift in semitones, duration unchanged (src/audio/dsp/time-pitch.ts). */
    'audio.pitch': { payload: { samples: Int16Array; sampleRate: number; semitones: number }; result: Int16Array };
    /** After synthesis: pitch shift, DC high-pass, the voice's fixed gain, true-peak limiter (src/audio/dsp/voice-output.ts). */
    'audio.voice': { payload: VoiceOutputTask; result: Int16Array };
    'audio.resample': { payload: { samples: Int16Array; inputRate: number; outputRate: number }; result: Int16Array };
  }
}

export {};
