// The tasks the main worker pool runs, by name, with their payload and result types. The room that
// owns a task declares it here by declaration merging (`declare module '…/workers/task-map.js'` in
// src/tts/tasks.ts, src/stt/tasks.ts, src/engines/tasks.ts, src/audio/tasks.ts), so this floor
// names no room above it; the handlers that run them are in src/tasks/table.ts, above them all.
// Add a task: one entry in the owning room's tasks.ts and one handler in the table.

export interface TaskShape {
  payload: unknown;
  result: unknown;
}

/** A map of task names to their shapes (an interface such as TaskMap below, or a pool's own). */
export type TaskShapes<M> = { [N in keyof M]: TaskShape };

export interface TaskMap {
  /** Health check of the pool itself. */
  'pool.echo': { payload: { value: number }; result: { value: number } };
}

type Payload<M, N extends keyof M> = M[N] extends TaskShape ? M[N]['payload'] : never;
type Result<M, N extends keyof M> = M[N] extends TaskShape ? M[N]['result'] : never;

export type TaskPayload<N extends keyof M, M = TaskMap> = Payload<M, N>;
export type TaskResult<N extends keyof M, M = TaskMap> = Result<M, N>;

/** What a task table module exports; each worker of a pool loads its pool's table (PoolOptions.tasks). */
export interface TaskTable<M> {
  taskHandlers: { [N in keyof M]: (p: Payload<M, N>) => Promise<Result<M, N>> };
  /**
   * Arrays in a task's result that the task made fresh for its caller: they are moved to the main
   * thread instead of copied (a 3,000-character text is ~7 MB of PCM, which would otherwise be
   * copied once per hop). Never list an array that can be a view on engine memory or a shared buffer.
   */
  resultArrays: { [N in keyof M]?: (r: Result<M, N>) => ArrayBufferView[] };
}
