// The whole suite's wall time on an idle machine, modelled from per-file figures, for the shared
// machine where it cannot be measured (docs/development.md, "Tests"). Each file is a task with the
// wall time and CPU seconds (test process + programs) of one whole run on an idle 2-core machine;
// alone it would progress at 1/wall per second and keep CPU/wall cores busy; when the files running
// at once ask for more cores than there are, all slow down in proportion (processor sharing). The
// tasks go through the runner's own scheduler (scripts/lib/test-schedule.mjs) in virtual time.
//
//   node --import tsx bench/suite-time.ts [figures] [--cores=2] [--scale=path-fragment=factor ...]
//
// `figures`: scripts/test-durations.json (the default) or a saved output of `npm test` (its time
// table). --scale multiplies the wall and CPU of matching files (what a file would cost after a
// change measured side by side). Checked against a real run: the CI run of 2026-11-28 took 938 s
// (2 at a time, alphabetical order, the old exclusive files alone); this model of it gives 943 s.
import { readFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error: a plain ES module script without type declarations
import { classify, isMeasuring, QUIET_BESIDE, QUIET_RATE, schedule } from '../scripts/lib/test-schedule.mjs';

interface Figures {
  wall: number;
  cpu: number;
}
interface Task {
  rel: string;
  measuring: boolean;
  quiet: boolean;
  longWaiter?: boolean;
  file: string;
}
interface Policy {
  name: string;
  jobs: number;
  measuring: (rel: string) => boolean;
  quietRate: number;
  quietBeside: number;
  order: 'alphabetical' | 'longest-first';
  /** The runner's own kinds (classify in scripts/lib/test-schedule.mjs), long waiters included. */
  runner?: boolean;
}

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const cores = Number(args.find((a) => a.startsWith('--cores='))?.slice(8) ?? 2);
const source = args.find((a) => !a.startsWith('--')) ?? path.join(root, 'scripts', 'test-durations.json');

function readFigures(file: string): Map<string, Figures> {
  const text = readFileSync(file, 'utf8');
  const out = new Map<string, Figures>();
  if (file.endsWith('.json')) {
    for (const [rel, [wall, cpu]] of Object.entries(JSON.parse(text).files as Record<string, [number, number]>))
      out.set(rel, { wall, cpu });
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^[>\s]*([\d.]+)\s+([\d.]+)\s+\+([\d.]+)\s+(test\/\S+\.test\.ts)/.exec(line);
    if (m) out.set(m[4]!, { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]) });
  }
  return out;
}

const figures = readFigures(source);
for (const a of args.filter((x) => x.startsWith('--scale='))) {
  const [fragment, factor] = a.slice(8).split('=');
  for (const [rel, f] of figures)
    if (rel.includes(fragment!)) figures.set(rel, { wall: f.wall * Number(factor), cpu: f.cpu * Number(factor) });
}
// --set=path-fragment=wall,cpu gives matching files (or a file not in the figures yet) new figures.
for (const a of args.filter((x) => x.startsWith('--set='))) {
  const [fragment, values] = a.slice(6).split('=');
  const [wall, cpu] = values!.split(',').map(Number);
  const matching = [...figures.keys()].filter((rel) => rel.includes(fragment!));
  for (const rel of matching.length ? matching : [fragment!]) figures.set(rel, { wall: wall!, cpu: cpu! });
}

const OLD_EXCLUSIVE = [
  'test/scale/overload.test.ts',
  'test/scale/memory-burst.test.ts',
  'test/tts/hostile-text-time.test.ts',
  'test/fairness/',
  'test/hostile/hostile-',
];
const rateOf = (rel: string) => figures.get(rel)!.cpu / Math.max(figures.get(rel)!.wall, 0.1);

async function model(policy: Policy): Promise<number> {
  const rels = [...figures.keys()];
  const tasks: Task[] = policy.runner
    ? (classify(rels, (rel: string) => [figures.get(rel)!.wall, figures.get(rel)!.cpu]) as Task[]).map((t) => ({ ...t, file: t.rel }))
    : rels.map((rel) => {
        const measuring = policy.measuring(rel);
        return { rel, file: rel, measuring, quiet: !measuring && rateOf(rel) < policy.quietRate };
      });
  const rank = (t: Task) => (t.measuring ? 1 : t.quiet && !t.longWaiter ? 2 : 0);
  tasks.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (policy.order === 'longest-first' ? figures.get(b.rel)!.wall - figures.get(a.rel)!.wall : 0) ||
      a.rel.localeCompare(b.rel),
  );
  const active = new Map<string, { progress: number; end: () => void }>();
  let ended = false;
  const done = schedule(
    tasks,
    { jobs: policy.jobs, quietRate: rateOf, quietBeside: policy.quietBeside },
    (rel: string) => new Promise<void>((end) => active.set(rel, { progress: 0, end })),
  ).then(() => {
    ended = true;
  });
  let t = 0;
  for (;;) {
    await new Promise((r) => setImmediate(r));
    if (ended) break;
    const demand = [...active.keys()].reduce((sum, rel) => sum + rateOf(rel), 0);
    const speed = demand > cores ? cores / demand : 1;
    const dt = Math.min(...[...active].map(([rel, a]) => ((1 - a.progress) * figures.get(rel)!.wall) / speed));
    t += dt;
    for (const [rel, a] of active) {
      a.progress += (dt * speed) / figures.get(rel)!.wall;
      if (a.progress >= 1 - 1e-9) {
        active.delete(rel);
        a.end();
      }
    }
  }
  await done;
  return t;
}

const all = [...figures.values()];
const cpu = all.reduce((s, f) => s + f.cpu, 0);
console.log(
  `${figures.size} files from ${path.relative(process.cwd(), source)}: ${cpu.toFixed(0)} CPU s in all (${(cpu / cores).toFixed(0)} s of ${cores} cores at the least)`,
);
const isIn = (list: string[]) => (rel: string) => list.some((e) => rel.startsWith(e));
const policies: Policy[] = [
  {
    name: 'before: 2 at a time, by name, the hostile files alone at the end',
    jobs: 2,
    measuring: isIn(OLD_EXCLUSIVE),
    quietRate: 0,
    quietBeside: 0,
    order: 'alphabetical',
  },
  { name: 'before, longest first', jobs: 2, measuring: isIn(OLD_EXCLUSIVE), quietRate: 0, quietBeside: 0, order: 'longest-first' },
  ...[2, 3, 4].map((jobs) => ({
    name: `before the long waiters (decision #77): ${jobs} at a time`,
    jobs,
    measuring: isMeasuring as (rel: string) => boolean,
    quietRate: QUIET_RATE as number,
    quietBeside: QUIET_BESIDE as number,
    order: 'longest-first' as const,
  })),
  ...[2, 3, 4].map((jobs) => ({
    runner: true,
    name: `now: ${jobs} at a time, longest first, measuring files beside quiet ones, long waiters in no slot`,
    jobs,
    measuring: isMeasuring as (rel: string) => boolean,
    quietRate: QUIET_RATE as number,
    quietBeside: QUIET_BESIDE as number,
    order: 'longest-first' as const,
  })),
];
for (const p of policies) console.log(`${(await model(p)).toFixed(0).padStart(6)} s  ${p.name}`);
