// The order in which scripts/run-tests.mjs runs test files side by side (docs/development.md, "Tests").

/**
 * Files that measure the machine (event-loop delay, RSS, time bounds on parsing and under attack):
 * one at a time, at the machine's normal priority, while every other file and the programs it
 * starts run at a lower one (BACKGROUND_NICE, decision #103): the busy files beside a measuring
 * file yield the cores to it, so a neighbour's load can neither fail it nor pass it by luck. The
 * other hostile files (hostile-decode, hostile-idle-sockets) bound no delay tighter than seconds
 * and are ordinary files.
 */
export const MEASURING = [
  'test/scale/overload.test.ts', // event-loop delay and queue limits under a burst
  'test/scale/memory-burst.test.ts', // the node's RSS before, during and after a burst
  'test/tts/hostile-text-time.test.ts', // time bounds on hostile text
  // Every case bounds the event loop's delay (test/hostile/harness.ts: 100 ms).
  'test/hostile/hostile-http.test.ts',
  'test/hostile/hostile-generated.test.ts',
  'test/hostile/hostile-realtime.test.ts',
  'test/hostile/hostile-deepgram-live.test.ts',
  // The victim's times under attack within 3x of idle, /health within 100 ms (issue 30).
  'test/fairness/',
];
export const isMeasuring = (rel) => MEASURING.some((e) => rel.startsWith(e));
/**
 * The nice value (Linux: 0 normal, 19 lowest) of the files that do not measure: at 10 a process
 * has about a tenth of the CPU weight of one at 0, so a measuring file gets the core it asks for.
 */
export const BACKGROUND_NICE = 10;
/**
 * A file is quiet when, on an idle machine, it used less CPU than this share of its wall time
 * (scripts/test-durations.json): it mostly waits on sockets, timers and programs.
 */
export const QUIET_RATE = 0.4;
/**
 * A quiet file longer than this (wall seconds in the idle figures) is a long waiter (decision #77):
 * it starts in the queue's order and takes none of the `jobs` slots. It waits on sockets, timers
 * and programs, so the busy files beside it keep the cores busy, where in a slot it left most of a
 * core idle for long (test/fairness: ~150 s at a seventh of a core). 25 s: a fifth of the
 * measuring files together when the rule was a share of them (decision #77), the best of the
 * shares bench/suite-time.ts tried; the files it names are the same.
 */
export const LONG_WAITER_SECONDS = 25;

/**
 * The kind of each file by the idle figures (`figures(rel)`: [wall, cpu] or undefined): measuring
 * (MEASURING), quiet (CPU under QUIET_RATE of its wall; unknown files are not), and, among the
 * quiet, the long waiters (LONG_WAITER_SECONDS). The runner and bench/suite-time.ts both use it.
 */
export function classify(rels, figures) {
  return rels.map((rel) => {
    const f = figures(rel);
    const quiet = f !== undefined && f[1] / Math.max(f[0], 0.1) < QUIET_RATE;
    return { rel, measuring: isMeasuring(rel), quiet, longWaiter: quiet && f[0] > LONG_WAITER_SECONDS };
  });
}

/**
 * Runs `files` ({ file, rel, measuring, longWaiter? }), `jobs` at a time besides the long waiters
 * (themselves at most `jobs` at a time: figures taken on a loaded machine can make many files look
 * quiet, and all of them at once beside the slots would overload it), in the queue's order, first
 * fit, at most one measuring file at a time (two would compete at the same priority), and resolves
 * with what `run(file)` resolved with, in the order they ended.
 */
export async function schedule(files, { jobs }, run) {
  const queue = [...files];
  const results = [];
  const running = new Map(); // promise -> file
  const canStart = (f) => {
    const now = [...running.values()];
    if (now.filter((x) => x.longWaiter === Boolean(f.longWaiter)).length >= jobs) return false;
    return !(f.measuring && now.some((x) => x.measuring));
  };
  await new Promise((done) => {
    const next = () => {
      if (queue.length === 0 && running.size === 0) return done();
      for (let i = 0; i < queue.length; ) {
        if (!canStart(queue[i])) {
          i++;
          continue;
        }
        const [item] = queue.splice(i, 1);
        const p = run(item.file).then((r) => {
          running.delete(p);
          results.push(r);
          next();
        });
        running.set(p, item);
        i = 0;
      }
    };
    next();
  });
  return results;
}
