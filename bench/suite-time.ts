// The whole suite's wall time on an idle machine, modelled from per-file figures, for the shared
// machine where it cannot be measured (docs/development.md, "Tests"). Each file is a task with the
// wall time and CPU seconds (test process + programs) of one whole run on an idle 2-core machine;
// alone it would progress at 1/wall per second and keep CPU/wall cores busy; when the files running
// at once ask for more cores than there are, the measuring files are served first (they run at
// normal priority, the others at nice 10: decision #103) and the others slow down in proportion
// (processor sharing). The tasks go through the runner's own scheduler
// (scripts/lib/test-schedule.mjs) in virtual time.
//
//   node --import tsx bench/suite-time.ts [figures] [--cores=2] [--scale=path-fragment=factor ...]
//
// `figures`: scripts/test-durations.json (the default) or a saved output of `npm test` (its time
// table). --scale multiplies the wall and CPU of matching files (what a file would cost after a
// change measured side by side). Checked against a real run: the whole run of 2026-11-29 14:00 UTC
// (4 at a time, idle machine) took 487 s; this model of its own table gives 469 s.
import { readFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error: a plain ES module script without type declarations
import { classify, schedule } from '../scripts/lib/test-schedule.mjs';

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

const rateOf = (rel: string) => figures.get(rel)!.cpu / Math.max(figures.get(rel)!.wall, 0.1);

/**
 * The run through the runner's own scheduler, `jobs` files at a time. The measuring files run at
 * the normal priority and the others below it (decision #103): a measuring file gets the cores it
 * asks for, the others share what is left, in proportion to what they ask.
 */
async function model(jobs: number): Promise<number> {
  const rels = [...figures.keys()];
  const tasks = (classify(rels, (rel: string) => [figures.get(rel)!.wall, figures.get(rel)!.cpu]) as Task[])
    .map((t) => ({ ...t, file: t.rel }))
    .sort((a, b) => figures.get(b.rel)!.wall - figures.get(a.rel)!.wall || a.rel.localeCompare(b.rel));
  const measuring = new Set(tasks.filter((t) => t.measuring).map((t) => t.rel));
  const active = new Map<string, { progress: number; end: () => void }>();
  let ended = false;
  const done = schedule(tasks, { jobs }, (rel: string) => new Promise<void>((end) => active.set(rel, { progress: 0, end }))).then(() => {
    ended = true;
  });
  let t = 0;
  for (;;) {
    await new Promise((r) => setImmediate(r));
    if (ended) break;
    const demand = (first: boolean) =>
      [...active.keys()].filter((rel) => measuring.has(rel) === first).reduce((sum, rel) => sum + rateOf(rel), 0);
    const firstDemand = demand(true);
    const firstSpeed = firstDemand > cores ? cores / firstDemand : 1;
    const left = cores - firstDemand * firstSpeed;
    const restDemand = demand(false);
    const restSpeed = restDemand > left ? left / restDemand : 1;
    const speedOf = (rel: string) => (measuring.has(rel) ? firstSpeed : restSpeed);
    const dt = Math.min(...[...active].map(([rel, a]) => ((1 - a.progress) * figures.get(rel)!.wall) / speedOf(rel)));
    t += dt;
    for (const [rel, a] of active) {
      a.progress += (dt * speedOf(rel)) / figures.get(rel)!.wall;
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
for (const jobs of [2, 3, 4, 5]) console.log(`${(await model(jobs)).toFixed(0).padStart(6)} s  ${jobs} files at a time`);
