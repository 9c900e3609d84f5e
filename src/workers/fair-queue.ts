// The engine pool's task queue, fair between requests. Tasks belong to flows (one per request, see
// EnginePool.inFlow); a free worker takes the oldest task of the flow that was served least
// recently, so flows take turns. With a plain FIFO a long request that spreads its sentence chunks
// over every worker makes each step of a short request (its synthesis, then its encoding) wait
// behind one of its chunks; here a short request waits at most for the chunks already running.
// A task outside any flow is a flow of its own, served as a newcomer.

import { Piscina, type TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

/** What EnginePool puts under Piscina.queueOptionsSymbol on each task. */
export interface FairQueueOptions {
  flow?: object;
}

export class FairTaskQueue implements TaskQueue {
  /** Flows with waiting tasks, in the order they became non-empty. */
  private readonly waiting = new Map<object, Task[]>();
  /** Dispatch counter value when each flow was last served (flows are per-request objects). */
  private readonly lastServed = new WeakMap<object, number>();
  private dispatched = 0;
  private count = 0;
  /** Flows of tasks that came without one. */
  private readonly ownFlow = new WeakMap<Task, object>();

  get size(): number {
    return this.count;
  }

  push(task: Task): void {
    const flow = this.flowOf(task);
    const list = this.waiting.get(flow);
    if (list) list.push(task);
    else this.waiting.set(flow, [task]);
    this.count++;
  }

  /** Piscina puts a task back at the front when it could not be started. */
  unshift(task: Task): void {
    const flow = this.flowOf(task);
    const list = this.waiting.get(flow);
    if (list) list.unshift(task);
    else this.waiting.set(flow, [task]);
    this.count++;
  }

  shift(): Task | null {
    let best: object | null = null;
    let bestServed = Infinity;
    for (const flow of this.waiting.keys()) {
      const served = this.lastServed.get(flow) ?? -1;
      if (served < bestServed) {
        best = flow;
        bestServed = served;
      }
    }
    if (best === null) return null;
    const list = this.waiting.get(best)!;
    const task = list.shift()!;
    if (list.length === 0) this.waiting.delete(best);
    this.lastServed.set(best, this.dispatched++);
    this.count--;
    return task;
  }

  remove(task: Task): void {
    const flow = this.flowOf(task);
    const list = this.waiting.get(flow);
    const i = list ? list.indexOf(task) : -1;
    if (!list || i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.waiting.delete(flow);
    this.count--;
  }

  private flowOf(task: Task): object {
    const opts = (task as unknown as Record<symbol, FairQueueOptions | null | undefined>)[Piscina.queueOptionsSymbol];
    if (opts?.flow) return opts.flow;
    let own = this.ownFlow.get(task);
    if (!own) {
      own = {};
      this.ownFlow.set(task, own);
    }
    return own;
  }
}
