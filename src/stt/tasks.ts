// The worker tasks of speech-to-text (src/workers/task-map.ts; handlers in src/tasks/table.ts).

import type { CutRules } from './long-audio/plan.js';
import type { Plan, PlanDetector } from './long-audio/plan-task.js';

declare module '../workers/task-map.js' {
  interface TaskMap {
    /**
     * Speaker labels for speech spans (src/stt/diarize.ts) and, for each label, which of the known
     * speakers' references (decoded voice samples) it matched (-1: none).
     */
    'stt.diarize': {
      payload: { pcm: Int16Array; spans: Array<{ start: number; end: number }>; references: Int16Array[] };
      result: { labels: number[]; known: number[] };
    };
    /** Where to cut a long recording into pieces recognized in parallel (src/stt/long-audio/plan-task.ts). */
    'stt.plan': { payload: { pcm: Int16Array; pieceSeconds: number; cutting?: CutRules; detector?: PlanDetector }; result: Plan };
  }
}
