// The engine pool's task queue, fair between accounts and, within an account, between requests.
// Tasks belong to flows (one per request, see WorkerPool.inFlow) and flows to tenants (the account
// the work is for, src/domain/tenant.ts). A free worker takes the oldest task of the least recently
// served flow of the least recently served tenant: accounts take turns, then an account's requests
// do. With a plain FIFO a long request that spreads its sentence chunks over every worker makes
// each step of a short request (its synthesis, then its encoding) wait behind one of its chunks;
// with turns by request only, an account with many requests in flight would get as many turns as
// it has requests, so one account could still crowd out another (decision #58). A task outside any
// flow is a flow of its own; a flow without a tenant is its own tenant.

import { Piscina, type TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

/** What WorkerPool puts under Piscina.queueOptionsSymbol on each task. */
export interface FairQueueOptions {
  flow?: object;
  /** The account the task works for (currentTenant() where it was started). */
  tenant?: string | null;
}

type TenantKey = string | object;

/** Turns remembered for tenants with nothing waiting (the oldest are forgotten past it). */
const MAX_REMEMBERED = 4096;

export class FairTaskQueue implements TaskQueue {
  /** Tenants with waiting tasks -> their flows with waiting tasks, in the order they became non-empty. */
  private readonly waiting = new Map<TenantKey, Map<object, Task[]>>();
  /** Dispatch counter value when each tenant and each flow was last served. */
  private readonly tenantServed = new Map<TenantKey, number>();
  private readonly flowServed = new WeakMap<object, number>();
  private dispatched = 0;
  private count = 0;
  /** Flows of tasks that came without one. */
  private readonly ownFlow = new WeakMap<Task, object>();

  get size(): number {
    return this.count;
  }

  push(task: Task): void {
    this.add(task, false);
  }

  /** Piscina puts a task back at the front when it could not be started. */
  unshift(task: Task): void {
    this.add(task, true);
  }

  shift(): Task | null {
    const tenant = leastServed(this.waiting.keys(), (t) => this.tenantServed.get(t));
    if (tenant === null) return null;
    const flows = this.waiting.get(tenant)!;
    const flow = leastServed(flows.keys(), (f) => this.flowServed.get(f))!;
    const list = flows.get(flow)!;
    const task = list.shift()!;
    if (list.length === 0) flows.delete(flow);
    if (flows.size === 0) this.waiting.delete(tenant);
    this.flowServed.set(flow, this.dispatched);
    // Kept in the order served (delete, then set), so the oldest turns are first to forget. A tenant
    // whose queue empties keeps its turn: one that pushes one task at a time is not a newcomer each
    // time, ahead of accounts that have been waiting.
    this.tenantServed.delete(tenant);
    this.tenantServed.set(tenant, this.dispatched++);
    if (this.tenantServed.size > MAX_REMEMBERED) this.forgetOldest();
    this.count--;
    return task;
  }

  remove(task: Task): void {
    const { tenant, flow } = this.keysOf(task);
    const flows = this.waiting.get(tenant);
    const list = flows?.get(flow);
    const i = list ? list.indexOf(task) : -1;
    if (!flows || !list || i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) flows.delete(flow);
    if (flows.size === 0) this.waiting.delete(tenant);
    this.count--;
  }

  private forgetOldest(): void {
    for (const t of this.tenantServed.keys()) {
      if (this.tenantServed.size <= MAX_REMEMBERED / 2) return;
      if (!this.waiting.has(t)) this.tenantServed.delete(t);
    }
  }

  private add(task: Task, front: boolean): void {
    const { tenant, flow } = this.keysOf(task);
    let flows = this.waiting.get(tenant);
    if (!flows) this.waiting.set(tenant, (flows = new Map()));
    const list = flows.get(flow);
    if (!list) flows.set(flow, [task]);
    else if (front) list.unshift(task);
    else list.push(task);
    this.count++;
  }

  private keysOf(task: Task): { tenant: TenantKey; flow: object } {
    const opts = (task as unknown as Record<symbol, FairQueueOptions | null | undefined>)[Piscina.queueOptionsSymbol];
    let flow = opts?.flow;
    if (!flow) {
      flow = this.ownFlow.get(task);
      if (!flow) this.ownFlow.set(task, (flow = {}));
    }
    return { tenant: opts?.tenant ?? flow, flow };
  }
}

/** The key served longest ago (never served: first), ties to the one that started waiting first. */
function leastServed<K>(keys: Iterable<K>, served: (k: K) => number | undefined): K | null {
  let best: K | null = null;
  let bestServed = Infinity;
  for (const k of keys) {
    const s = served(k) ?? -1;
    if (s < bestServed) {
      best = k;
      bestServed = s;
    }
  }
  return best;
}
