// The layering of src/ (docs/architecture.md), checked on the import graph (./import-graph.ts): no
// import circle between files, no import from a lower floor to a higher one, no loop between rooms
// (folders), and no import in a forbidden direction. The renovation of issue 18 emptied the lists of known
// violations below; the test fails on any violation not listed, and on a listed one that is gone
// (so a list, if one is ever needed again, only shrinks). Type-only imports count: a layer that needs another's types
// depends on it. The browser app in src/dashboard/web has its own build and is not part of this.

import test from 'node:test';
import assert from 'node:assert/strict';
import { importGraph, circles, roomGraph, upwardImports, roomOf, floorOf, FLOORS } from './import-graph.js';

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
  {
    name: 'src/engines throws its own errors, not the error table of the edges (src/errors.ts)',
    forbids: (f, t) => under(f, 'engines') && t === 'src/errors.ts',
  },
  {
    name: 'src/workers throws its own errors, not the error table of the edges (src/errors.ts)',
    forbids: (f, t) => under(f, 'workers') && t === 'src/errors.ts',
  },
  { name: 'src/workers imports nothing from src/http', forbids: (f, t) => under(f, 'workers') && under(t, 'http') },
  { name: 'src/edge (shared by every edge) imports nothing from src/http', forbids: (f, t) => under(f, 'edge') && under(t, 'http') },
  { name: 'src/routes imports nothing from src/storage', forbids: (f, t) => under(f, 'routes') && under(t, 'storage') },
  {
    name: 'the dialects (src/compat, src/wyoming) import the live session from src/stt/live, nothing from the native edge src/realtime',
    forbids: (f, t) => (under(f, 'compat') || under(f, 'wyoming')) && under(t, 'realtime'),
  },
  {
    name: 'src/stt (the live session included) imports nothing from the native edge src/realtime',
    forbids: (f, t) => under(f, 'stt') && under(t, 'realtime'),
  },
  { name: 'src/realtime imports nothing from src/storage', forbids: (f, t) => under(f, 'realtime') && under(t, 'storage') },
  { name: 'src/wyoming imports nothing from src/storage', forbids: (f, t) => under(f, 'wyoming') && under(t, 'storage') },
  {
    name: 'src/storage imports nothing from src/accounts (accounts uses storage, not both ways)',
    forbids: (f, t) => under(f, 'storage') && under(t, 'accounts'),
  },
  { name: 'src/domain imports nothing from the rest of src', forbids: (f, t) => under(f, 'domain') && !under(t, 'domain') },
  {
    name: 'the configuration (src/config.ts, src/config/) imports nothing from src but src/domain',
    forbids: (f, t) => (f === 'src/config.ts' || under(f, 'config')) && !under(t, 'domain') && !under(t, 'config'),
  },
];

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

/** Imports from a lower floor to a higher one still in src/, as "from -> to" (docs/architecture.md, "Floors"). */
const KNOWN_UPWARD: string[] = [];

/** Loops between rooms still in src/, each as its sorted member rooms. */
const KNOWN_ROOM_LOOPS: string[][] = [];

test('every file of src/ stands in a room on a floor (a new folder gets its place in FLOORS)', () => {
  assert.deepEqual(roomGraph(graph).unplaced, []);
  assert.ok(FLOORS.length >= 8);
  assert.equal(roomOf('src/stt/live/session.ts'), 'stt/live', 'a nested room is its own room');
  assert.equal(floorOf(roomOf('src/stt/live/session.ts')!), floorOf('stt'), 'stt/live is part of the services floor');
});

test('no import from a lower floor to a higher one, other than the known ones, which are listed while they remain', () => {
  const found = upwardImports(graph);
  const added = found.filter((v) => !KNOWN_UPWARD.includes(v));
  const gone = KNOWN_UPWARD.filter((v) => !found.includes(v));
  const explain = (v: string) => {
    const [from, to] = v.split(' -> ') as [string, string];
    return `${v}   (${roomOf(from)} on floor ${floorOf(roomOf(from)!) + 1} imports ${roomOf(to)} on floor ${floorOf(roomOf(to)!) + 1})`;
  };
  assert.deepEqual(added.map(explain), [], 'new upward import(s): move the shared part down a floor');
  assert.deepEqual(gone, [], 'listed upward import(s) no longer exist: remove them from KNOWN_UPWARD');
});

test('no loop between rooms (folders), other than the known ones, which are listed while they remain', () => {
  const found = circles(roomGraph(graph).rooms).map(key);
  const known = KNOWN_ROOM_LOOPS.map((c) => key([...c].sort()));
  const added = found.filter((c) => !known.includes(c));
  const gone = known.filter((c) => !found.includes(c));
  assert.deepEqual(added, [], `new loop(s) between rooms, each listed as its member rooms:\n${added.join('\n')}`);
  assert.deepEqual(gone, [], `listed loop(s) no longer exist: remove them from KNOWN_ROOM_LOOPS:\n${gone.join('\n')}`);
});

test('the floor checks see an upward import and a loop between rooms when there is one', () => {
  const fake = new Map<string, Set<string>>([
    ['src/storage/store.ts', new Set(['src/routes/v1/tts.ts'])],
    ['src/routes/v1/tts.ts', new Set(['src/storage/store.ts'])],
  ]);
  assert.deepEqual(upwardImports(fake), ['src/storage/store.ts -> src/routes/v1/tts.ts']);
  assert.deepEqual(circles(roomGraph(fake).rooms), [['routes', 'storage']]);
});
