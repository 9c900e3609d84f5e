// Worker-thread entry of the engine pool: dispatches a named task to its handler. Result arrays the
// task made fresh go back to the main thread by transfer, not by copy (resultArrays).
import { Piscina } from 'piscina';
import { movableBuffers } from './pool.js';
import { resultArrays, taskHandlers, type TaskName } from './worker-tasks.js';

export async function runTask(msg: { name: TaskName; payload: unknown }): Promise<unknown> {
  const handler = taskHandlers[msg.name] as ((p: unknown) => Promise<unknown>) | undefined;
  if (!handler) throw new Error(`unknown worker task ${String(msg.name)}`);
  const result = await handler(msg.payload);
  const arrays = (resultArrays[msg.name] as ((r: unknown) => ArrayBufferView[]) | undefined)?.(result);
  const buffers = arrays ? movableBuffers(arrays) : [];
  if (buffers.length === 0) return result;
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: result } as never);
}
