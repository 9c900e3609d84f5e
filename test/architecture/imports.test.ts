// The layering of src/ (docs/architecture.md), checked on the import graph: no import circle, and
// no import in a forbidden direction. The renovation of issue 18 emptied the lists of known
// violations below; the test fails on any violation not listed, and on a listed one that is gone
// (so a list, if one is ever needed again, only shrinks). Type-only imports count: a layer that needs another's types
// depends on it. The browser app in src/dashboard/web has its own build and is not part of this.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const EXCLUDED = [path.join(SRC, 'dashboard', 'web')];

/** Import circles still in src/, each as its sorted member files. */
const KNOWN_CIRCLES: string[][] = [];

/** Imports in a forbidden direction still in src/, as "from -> to". */
const KNOWN_FORBIDDEN: string[] = [];

interface Rule {
  name: string;
  /** Does this rule apply to an import of `to` by `from` (paths relative to the repository)? */
  forbids: (from: string, to: string) => boolean;
}

const under = (file: string, dir: string) => file.startsWith(`src/${dir}/`);

const RULES: Rule[] = [
  { name: 'src/realtime imports nothing from src/http', forbids: (f, t) => under(f, 'realtime') && under(t, 'http') },
  { name: 'src/wyoming imports nothing from src/http', forbids: (f, t) => under(f, 'wyoming') && under(t, 'http') },
  { name: 'src/engines imports nothing from src/http', forbids: (f, t) => under(f, 'engines') && under(t, 'http') },
  { name: 'src/engines throws its own errors, not the error table of the edges (src/errors.ts)', forbids: (f, t) => under(f, 'engines') && t === 'src/errors.ts' },
  { name: 'src/workers throws its own errors, not the error table of the edges (src/errors.ts)', forbids: (f, t) => under(f, 'workers') && t === 'src/errors.ts' },
  { name: 'src/workers imports nothing from src/http', forbids: (f, t) => under(f, 'workers') && under(t, 'http') },
  { name: 'src/edge (shared by every edge) imports nothing from src/http', forbids: (f, t) => under(f, 'edge') && under(t, 'http') },
  { name: 'src/routes imports nothing from src/storage', forbids: (f, t) => under(f, 'routes') && under(t, 'storage') },
  { name: 'src/realtime imports nothing from src/storage', forbids: (f, t) => under(f, 'realtime') && under(t, 'storage') },
  { name: 'src/wyoming imports nothing from src/storage', forbids: (f, t) => under(f, 'wyoming') && under(t, 'storage') },
  { name: 'src/storage imports nothing from src/accounts (accounts uses storage, not both ways)', forbids: (f, t) => under(f, 'storage') && under(t, 'accounts') },
  { name: 'src/domain imports nothing from the rest of src', forbids: (f, t) => under(f, 'domain') && !under(t, 'domain') },
  { name: 'src/config.ts imports nothing from src but src/domain', forbids: (f, t) => f === 'src/config.ts' && !under(t, 'domain') },
];

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
function importGraph(): Map<string, Set<string>> {
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

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, Set<string>>): string[][] {
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

const graph = importGraph();
const key = (members: string[]) => members.join(' | ');

test('the import graph is read (guards the checks below against an empty or broken walk)', () => {
  assert.ok(graph.size > 100, `only ${graph.size} files found under src/`);
  assert.ok(graph.get('src/accounts/billing.ts')?.has('src/storage/store.ts'), 'billing.ts -> store.ts not seen');
  assert.ok(graph.get('src/app.ts')?.has('src/services.ts'), 'app.ts -> services.ts not seen');
});

test('no import circle in src/ other than the known ones, which are listed while they remain', () => {
  const found = circles(graph).map(key);
  const known = KNOWN_CIRCLES.map((c) => key([...c].sort()));
  const added = found.filter((c) => !known.includes(c));
  const gone = known.filter((c) => !found.includes(c));
  assert.deepEqual(added, [], `new import circle(s), each listed as its member files:\n${added.join('\n')}`);
  assert.deepEqual(gone, [], `listed circle(s) no longer exist (or changed members): remove them from KNOWN_CIRCLES:\n${gone.join('\n')}`);
});

test('no import in a forbidden direction other than the known ones, which are listed while they remain', () => {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const broken = RULES.find((r) => r.forbids(from, to));
      if (broken) found.push(`${from} -> ${to}`);
    }
  }
  found.sort();
  const added = found.filter((v) => !KNOWN_FORBIDDEN.includes(v));
  const gone = KNOWN_FORBIDDEN.filter((v) => !found.includes(v));
  const explain = (v: string) => {
    const [from, to] = v.split(' -> ') as [string, string];
    return `${v}   (${RULES.find((r) => r.forbids(from, to))?.name ?? 'no rule applies any more'})`;
  };
  assert.deepEqual(added.map(explain), [], 'new import(s) in a forbidden direction');
  assert.deepEqual(gone, [], 'listed import(s) no longer exist: remove them from KNOWN_FORBIDDEN');
});
