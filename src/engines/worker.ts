// Worker-thread entry of the engine pool: dispatches a named task to its handler.
import { taskHandlers, type TaskName } from './worker-tasks.js';

export async function runTask(msg: { name: TaskName; payload: unknown }): Promise<unknown> {
  const handler = taskHandlers[msg.name] as ((p: unknown) => Promise<unknown>) | undefined;
  if (!handler) throw new Error(`unknown worker task ${String(msg.name)}`);
  return handler(msg.payload);
}
