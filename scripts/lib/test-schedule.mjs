// The order in which scripts/run-tests.mjs runs test files side by side (docs/development.md, "Tests").

/**
 * Files that measure the machine (event-loop delay, RSS, time bounds on parsing): one at a time,
 * at the end, with nothing beside them but quiet files (QUIET_RATE) whose CPU adds up to at most
 * QUIET_BESIDE cores, so a neighbour's load can neither fail them nor pass them by luck. The other
 * hostile files (hostile-decode, hostile-idle-sockets) bound no delay tighter than seconds and run
 * in the pool like any file. test/fairness/ runs in the pool too while its time and /health bounds
 * are TODOs (issue 30): its ordinary checks (survival, the ledger, memory's return, which waits for
 * the model TTL and not for the machine) do not depend on the machine's load, and alone at the end
 * it added ~290 s to the run. It goes back on this list when those bounds become ordinary tests.
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
];
export const isMeasuring = (rel) => MEASURING.some((e) => rel.startsWith(e));
/**
 * A file is quiet when, on an idle machine, it used less CPU than this share of its wall time
 * (scripts/test-durations.json): it mostly waits on sockets, timers and programs.
 */
export const QUIET_RATE = 0.4;
/** The CPU (cores, by the same figures) the quiet files beside a measuring file may use in all. */
export const QUIET_BESIDE = 0.5;
/**
 * A quiet file longer than this share of the measuring files' wall time (all of them, one after
 * the other; with none in the run, every quiet file) is a long waiter (decision #77). Kept for the
 * measuring phase it would take the half core beside them for long, or outlast the phase and end
 * the run alone (test/fairness: ~150-300 s at a seventh of a core). It starts with the first files
 * instead and takes none of the `jobs` slots: it waits on sockets, timers and programs, so the
 * busy files beside it keep the cores busy, where in a slot it left most of a core idle. A fifth:
 * the share bench/suite-time.ts found best on the CI figures (0.1 to 1 cost 5-25 s more).
 */
export const LONG_WAITER_SHARE = 0.2;

/**
 * The kind of each file by the idle figures (`figures(rel)`: [wall, cpu] or undefined): measuring
 * (MEASURING), quiet (CPU under QUIET_RATE of its wall; unknown files are not), and, among the
 * quiet, the long waiters (LONG_WAITER_SHARE). The runner and bench/suite-time.ts both use it.
 */
export function classify(rels, figures) {
  const rate = (rel) => {
    const f = figures(rel);
    return f ? f[1] / Math.max(f[0], 0.1) : Infinity;
  };
  const measuringWall = rels.filter(isMeasuring).reduce((sum, rel) => sum + (figures(rel)?.[0] ?? 0), 0);
  return rels.map((rel) => {
    const measuring = isMeasuring(rel);
    const quiet = !measuring && rate(rel) < QUIET_RATE;
    return { rel, measuring, quiet, longWaiter: quiet && figures(rel)[0] > LONG_WAITER_SHARE * measuringWall };
  });
}

/**
 * Runs `files` ({ file, rel, measuring, quiet, longWaiter? }), `jobs` at a time, in the queue's
 * order, first fit, and resolves with what `run(file)` resolved with, in the order they ended. A
 * measuring file starts when no other measuring file runs and the files running are quiet, their
 * CPU rates (cores, by `quietRate(rel)`) adding up to at most `quietBeside`; while it runs, only
 * quiet files start beside it, within the same sum. While measuring files remain, the quiet files
 * are kept for them, except the long waiters: those take no slot and start in the queue's order.
 */
export async function schedule(files, { jobs, quietRate, quietBeside }, run) {
  const queue = [...files];
  const results = [];
  const running = new Map(); // promise -> file
  const canStart = (f) => {
    const now = [...running.values()];
    if (!f.longWaiter && now.filter((x) => !x.longWaiter).length >= jobs) return false;
    const beside = now.reduce((sum, x) => sum + (x.measuring ? 0 : quietRate(x.rel)), 0);
    if (f.measuring) return !now.some((x) => x.measuring) && now.every((x) => x.quiet) && beside <= quietBeside;
    if (now.some((x) => x.measuring)) return f.quiet && beside + quietRate(f.rel) <= quietBeside;
    return !(f.quiet && !f.longWaiter && queue.some((x) => x.measuring));
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
