// The import graph of src/ and its floor order (docs/architecture.md, "Floors"): read by
// test/architecture/imports.test.ts (the rules) and scripts/import-graph.ts (the figures).
// Type-only imports count: a folder that needs another's types depends on it. The browser app in
// src/dashboard/web has its own build and is not part of this.

import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/root.js';

export { ROOT };
const SRC = path.join(ROOT, 'src');
const EXCLUDED = [path.join(SRC, 'dashboard', 'web')];

/**
 * The floors of src/, from the top down. A room (a folder, or a file straight under src/) may
 * import from its own floor and the floors below, never from a floor above; imports within a floor
 * must not close a loop between rooms. A room is named by its path under src/; a nested room
 * (compat/openai, stt/live) is its own room when it is listed, else a folder belongs to the
 * nearest listed room above it.
 */
export const FLOORS: { name: string; rooms: string[] }[] = [
  { name: 'process entry and wiring', rooms: ['server.ts', 'background-jobs.ts', 'cli', 'app.ts'] },
  // compat/ itself: what both dialects under /v1 share at the door (which dialect answers, the
  // shared GET /v1/models, the /v1 404), above the two dialects whose renderers it calls.
  { name: 'the shared /v1 door', rooms: ['compat'] },
  { name: 'edges, one per protocol', rooms: ['routes', 'realtime', 'compat/openai', 'compat/deepgram', 'wyoming', 'dashboard'] },
  // services.ts is the object every edge is handed (built by createServices); the task table runs
  // the code of the floors below in worker threads, so it stands above them.
  { name: 'edge helpers, the services object, the worker task table', rooms: ['edge', 'http', 'services.ts', 'tasks'] },
  { name: 'services', rooms: ['jobs', 'tts', 'stt', 'stt/live'] },
  // faults/ is the one translation of what the floors below throw into the API's errors, read by
  // the edges and by the job runner (a job's error object).
  { name: 'what services use', rooms: ['registry', 'catalog', 'accounts', 'faults'] },
  { name: 'engines, the models they load, the worker pool, audio', rooms: ['engines', 'models', 'workers', 'audio'] },
  { name: 'ports', rooms: ['storage', 'limits', 'net', 'process'] },
  { name: 'ground', rooms: ['errors.ts', 'domain', 'config.ts', 'config', 'types'] },
];

const ROOMS = FLOORS.flatMap((f) => f.rooms);
const FLOOR_OF = new Map(FLOORS.flatMap((f, i) => f.rooms.map((r) => [r, i] as const)));

/** The room a src/ file (path relative to the repository) stands in, or null when no floor lists it. */
export function roomOf(file: string): string | null {
  const rel = file.replace(/^src\//, '');
  let best: string | null = null;
  for (const r of ROOMS) {
    if (rel === r || rel.startsWith(`${r}/`)) {
      if (!best || r.length > best.length) best = r;
    }
  }
  return best;
}

export function floorOf(room: string): number {
  const f = FLOOR_OF.get(room);
  if (f === undefined) throw new Error(`room ${room} is on no floor`);
  return f;
}

function sourceFiles(dir: string): string[] {
  if (EXCLUDED.includes(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The src/ file a relative specifier names ('./x.js' is written for './x.ts'), or null. */
function resolve(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, path.join(base, 'index.ts')];
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (!hit) throw new Error(`${path.relative(ROOT, fromFile)}: cannot resolve import '${specifier}'`);
  return hit;
}

/** Every src/ file and the src/ files it imports (static, dynamic and type-only imports, re-exports). */
export function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolve(file, ref.fileName);
      if (target && target.startsWith(SRC + path.sep)) targets.add(path.relative(ROOT, target));
    }
    graph.set(path.relative(ROOT, file), targets);
  }
  return graph;
}

/** Strongly connected components with more than one node, or a node importing itself (Tarjan). */
export function circles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The graph between rooms (an edge for every file import that crosses rooms), and the files no floor lists. */
export function roomGraph(graph: Map<string, Set<string>>): { rooms: Map<string, Set<string>>; unplaced: string[] } {
  const rooms = new Map<string, Set<string>>();
  const unplaced: string[] = [];
  for (const [from, targets] of graph) {
    const a = roomOf(from);
    if (!a) {
      unplaced.push(from);
      continue;
    }
    if (!rooms.has(a)) rooms.set(a, new Set());
    for (const to of targets) {
      const b = roomOf(to);
      if (b && b !== a) rooms.get(a)!.add(b);
    }
  }
  return { rooms, unplaced: unplaced.sort() };
}

/** Every file import from a lower floor to a higher one, as "from -> to". */
export function upwardImports(graph: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const a = roomOf(from);
    if (!a) continue;
    for (const to of targets) {
      const b = roomOf(to);
      if (b && floorOf(b) < floorOf(a)) out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

/** The lines of every src/ file, longest first. */
export function fileSizes(): { file: string; lines: number }[] {
  return sourceFiles(SRC)
    .map((p) => ({ file: path.relative(ROOT, p), lines: readFileSync(p, 'utf8').split('\n').length - 1 }))
    .sort((a, b) => b.lines - a.lines);
}
