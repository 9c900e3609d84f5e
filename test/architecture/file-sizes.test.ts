// Files a person can hold in their head (docs/architecture.md, issue 27): no file of src/ over 400
// lines, no route file over 150, and a route's handler is a named function (createSpeech, listJobs,
// ...), so a stack trace and a profile name it. A route file is one that registers HTTP routes
// (app.get/post/put/patch/delete) or a WebSocket path (wsRoutes.add). The browser app in
// src/dashboard/web has its own build and is not part of this. Counted on the tree as it is: after
// `npm run format` (lineWidth 140) the same limits hold.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from './import-graph.js';

const MAX_LINES = 400;
const MAX_ROUTE_LINES = 150;
// Route files known to break a rule; the lists only shrink (empty since the merge of /v1/listen's
// named handlers): a listed file that keeps the rule fails the test too.
const KNOWN_LONG_ROUTE_FILES: string[] = [];
const KNOWN_ANONYMOUS_HANDLERS: string[] = [];

function files(dir: string): string[] {
  if (dir === path.join(ROOT, 'src', 'dashboard', 'web')) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

const sources = files(path.join(ROOT, 'src')).map((p) => {
  const text = readFileSync(p, 'utf8');
  return { file: path.relative(ROOT, p), text, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) };
});
const ROUTE_CALL = /\bapp\.(get|post|put|patch|delete)(<[^>]*>)?\(|\bwsRoutes\.add\(/;
const routeFiles = sources.filter((s) => ROUTE_CALL.test(s.text));

test('the walk finds the route files (guards the checks below against an empty walk)', () => {
  assert.ok(sources.length > 100, `only ${sources.length} files under src/`);
  for (const f of ['src/routes/v1/tts.ts', 'src/dashboard/routes.ts', 'src/routes/v1/jobs.ts'])
    assert.ok(
      routeFiles.some((r) => r.file === f),
      `${f} not seen as a route file`,
    );
});

test(`no file of src/ over ${MAX_LINES} lines`, () => {
  assert.deepEqual(
    sources.filter((s) => s.lines > MAX_LINES).map((s) => `${s.file}: ${s.lines}`),
    [],
  );
});

test(`no route file over ${MAX_ROUTE_LINES} lines`, () => {
  const long = routeFiles.filter((s) => s.lines > MAX_ROUTE_LINES);
  assert.deepEqual(
    long.filter((s) => !KNOWN_LONG_ROUTE_FILES.includes(s.file)).map((s) => `${s.file}: ${s.lines}`),
    [],
  );
  const gone = KNOWN_LONG_ROUTE_FILES.filter((f) => !long.some((s) => s.file === f));
  assert.deepEqual(gone, [], 'listed file(s) are within the limit now: remove them from KNOWN_LONG_ROUTE_FILES');
});

/** The registrations in a file whose handler is an anonymous function, as "line: app.post('/path')". */
function anonymousHandlers(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const anonymous = (n: ts.Node | undefined) => !!n && (ts.isArrowFunction(n) || (ts.isFunctionExpression(n) && !n.name));
  const visit = (n: ts.Node) => {
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      /^(get|post|put|patch|delete|route)$/.test(n.expression.name.text)
    ) {
      const last = n.arguments[n.arguments.length - 1];
      const options = n.arguments.find(ts.isObjectLiteralExpression);
      const handlerProp = options?.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(sf) === 'handler') as
        | ts.PropertyAssignment
        | undefined;
      const isRoute = n.arguments.length >= 2 && ts.isStringLiteralLike(n.arguments[0]!);
      if ((isRoute && anonymous(last)) || anonymous(handlerProp?.initializer)) {
        out.push(`${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.getText(sf).slice(0, 40)}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('route handlers are named functions, not anonymous closures', () => {
  const found = routeFiles.flatMap((s) => anonymousHandlers(s.file, s.text).map((h) => `${s.file}:${h}`));
  const added = found.filter((f) => !KNOWN_ANONYMOUS_HANDLERS.some((k) => f.startsWith(`${k}:`)));
  assert.deepEqual(added, []);
  const gone = KNOWN_ANONYMOUS_HANDLERS.filter((k) => !found.some((f) => f.startsWith(`${k}:`)));
  assert.deepEqual(gone, [], 'listed file(s) have only named handlers now: remove them from KNOWN_ANONYMOUS_HANDLERS');
});
