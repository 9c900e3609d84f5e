// Worker-thread entry of a worker pool: loads the pool's task table (PoolOptions.tasks, passed as
// workerData) and dispatches a named task to its handler. Result arrays the task made fresh go back
// to the main thread by transfer, not by copy (TaskTable.resultArrays).
import { Piscina } from 'piscina';
import { movableBuffers } from './pool.js';
import type { TaskShape, TaskTable } from './task-map.js';

type AnyTable = TaskTable<Record<string, TaskShape>>;
let table: Promise<AnyTable> | null = null;

export async function runTask(msg: { name: string; payload: unknown }): Promise<unknown> {
  table ??= import((Piscina.workerData as { tasks: string }).tasks) as Promise<AnyTable>;
  const { taskHandlers, resultArrays } = await table;
  const handler = taskHandlers[msg.name];
  if (!handler) throw new Error(`unknown worker task ${String(msg.name)}`);
  const result = await handler(msg.payload);
  const arrays = resultArrays[msg.name]?.(result);
  const buffers = arrays ? movableBuffers(arrays) : [];
  if (buffers.length === 0) return result;
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: result } as never);
}
