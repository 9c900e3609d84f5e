// Runs every test/**/*.test.ts file with Node's test runner (compiled, or through tsx), several files
// at once, and prints the time of each file at the end, slowest first (docs/development.md).
//
//   node scripts/run-tests.mjs [fragment ...] [--jobs=N] [--save-durations] [--test-name-pattern=...]
//
// Fragments narrow the run to files whose path contains one of them: `npm test -- storage`.
// --jobs (or PARLA_TEST_JOBS) sets how many files run at once; the default is twice the machine's
// available parallelism, as a file keeps about half a core busy on average: it waits on sockets,
// programs and timers part of the time (decision #103). Test files are independent (port 0, a temp
// dir and a PostgreSQL schema each, random Redis keys): the few that measure the machine itself run
// one at a time at normal priority, every other file at a lower one (MEASURING and BACKGROUND_NICE
// in scripts/lib/test-schedule.mjs, decision #103); long quiet files (long waiters, decision #77)
// take no slot. --save-durations writes this run's timings to scripts/test-durations.json: run it
// with --jobs=3 at most, on an idle machine (more at once stretch the walls, and too many files
// then look quiet: docs/development.md).
//
// Each file runs as one `node --test-reporter=spec dist/<file>.js` process (its compiled copy, when
// `npm run build:tests` made every one current; else `node --import tsx ... <file>`), the same
// process `node --test` would start for it, minus the parent. Its output is printed whole when it
// ends, so files never interleave. The closing summary keeps node's format (`ℹ tests N`, `ℹ pass
// N`, `ℹ fail N`, ...), summed over the files, and the exit status is 1 when anything failed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { BACKGROUND_NICE, classify, schedule } from './lib/test-schedule.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A file that has not ended after this long is stopped and counted as failed. */
const FILE_TIMEOUT_MS = Number(process.env.PARLA_TEST_FILE_TIMEOUT_MS ?? 15 * 60_000);
/** Durations of the last run on this machine: the order of files the idle figures do not have yet. */
const TIMES_FILE = path.join(root, 'node_modules', '.cache', 'parla-test-times.json');
/** Wall and CPU seconds of every file on an idle machine: the order (longest first), and which files are quiet. */
const DURATIONS_FILE = path.join(root, 'scripts', 'test-durations.json');
const COUNTERS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

function walkAll(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? walkAll(p) : [p];
  });
}
const walk = (dir) => walkAll(dir).filter((p) => p.endsWith('.test.ts'));

function parseArgs(argv) {
  const filters = [];
  const passThrough = [];
  let jobs = Number(process.env.PARLA_TEST_JOBS) || 2 * availableParallelism();
  let saveDurations = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--save-durations') saveDurations = true;
    else if (a === '--jobs' || a === '-j') jobs = Number(argv[++i]);
    else if (a.startsWith('--jobs=')) jobs = Number(a.slice('--jobs='.length));
    else if (a.startsWith('--test-')) passThrough.push(a);
    else if (!a.startsWith('-')) filters.push(a);
  }
  if (!Number.isInteger(jobs) || jobs < 1) {
    console.error('--jobs must be a whole number of at least 1');
    process.exit(2);
  }
  return { filters, passThrough, jobs, saveDurations };
}

function readJson(file, fallback) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return fallback;
  }
}

const stripAnsi = stripVTControlCharacters;

/** node's closing summary lines (`ℹ tests 12`) of one file's output, or null when it printed none. */
function summaryOf(output) {
  const counts = {};
  for (const line of stripAnsi(output).split('\n')) {
    const m = /^ℹ (\w+) ([\d.]+)$/.exec(line.trim());
    if (m && COUNTERS.includes(m[1])) counts[m[1]] = Number(m[2]);
  }
  return 'tests' in counts ? counts : null;
}

/** The spec reporter's recap of failures ("✖ failing tests:" to the end), to repeat at the end of the run. */
function failureRecap(output) {
  const plain = stripAnsi(output);
  const at = plain.lastIndexOf('✖ failing tests:');
  return at >= 0 ? plain.slice(at + '✖ failing tests:'.length).trim() : '';
}

/** The test processes running now: stopped with the runner (Ctrl-C, or CI's SIGTERM) rather than left behind. */
const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(130);
  });
}

function runFile(file, measuring, passThrough, usageDir, sharedDir, compiled) {
  const rel = path.relative(root, file);
  // The compiled copy of the file when every test source is built (decision #102), else the source through tsx.
  const entry = compiled.tests ? ['--enable-source-maps', compiledPath(rel)] : ['--import', 'tsx', rel];
  // A file that does not measure the machine runs, with every thread and program it starts, below
  // the priority of the measuring ones (decision #103): `nice` sets it before node starts a thread.
  const [command, ...prefix] = measuring ? [process.execPath] : ['nice', '-n', String(BACKGROUND_NICE), process.execPath];
  const usageFile = path.join(usageDir, `${rel.replace(/[\\/]/g, '_')}.json`);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      command,
      [
        ...prefix,
        '--import',
        pathToFileURL(path.join(root, 'scripts', 'lib', 'test-usage.mjs')).href,
        '--test-reporter=spec',
        ...passThrough,
        ...entry,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          NODE_ENV: 'test',
          // The recordings tests make with sox are the same on every run: sox dithers whenever it
          // cuts the bit depth or an effect (rate, gain, ...) raised it, with fresh random noise
          // each time, so a recognition test heard a slightly different recording on each run (the
          // mu-law test's "quarterly" was "orderly" on some). -R keeps the dither, repeatable.
          // Parla itself never runs sox.
          SOX_OPTS: process.env.SOX_OPTS ?? '-R',
          PARLA_TEST_USAGE_FILE: usageFile,
          PARLA_TEST_SHARED_DIR: sharedDir,
          ...(compiled.src ? { PARLA_TEST_COMPILED: '1' } : {}),
          ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}),
        },
      },
    );
    children.add(child);
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n✖ ${rel} did not end within ${FILE_TIMEOUT_MS / 1000} s: stopped\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    let ended = false;
    let drain;
    const end = (code, signal) => {
      if (ended) return;
      ended = true;
      children.delete(child);
      clearTimeout(timer);
      clearTimeout(drain);
      let usage = null;
      try {
        usage = JSON.parse(readFileSync(usageFile, 'utf8'));
      } catch {
        // the process died before its exit hook ran
      }
      resolve({ rel, code, signal, output, seconds: (performance.now() - started) / 1000, usage });
    };
    child.on('close', end);
    // `nice` or node could not be started: the file fails, the run goes on.
    child.on('error', (err) => {
      output += `\n✖ ${rel} could not be started: ${err.message}\n`;
      end(null, null);
    });
    // A program the test left running may hold the output pipes open after the file's process
    // ended: give the output a moment to drain, then go on without waiting for that program.
    child.on('exit', (code, signal) => {
      drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        end(code, signal);
      }, 5000);
    });
  });
}

/** Writes this run's wall and CPU seconds into scripts/test-durations.json (files not run keep theirs). */
function saveIdleDurations(results) {
  const doc = readJson(DURATIONS_FILE, { about: '', files: {} });
  for (const r of results)
    if (r.usage) doc.files[r.rel] = [Number(r.seconds.toFixed(1)), Number((r.usage.cpu + (r.usage.children ?? 0)).toFixed(1))];
  const rows = Object.keys(doc.files)
    .sort()
    .map((rel) => `    ${JSON.stringify(rel)}: [${doc.files[rel].join(', ')}]`);
  writeFileSync(DURATIONS_FILE, `{\n  "about": ${JSON.stringify(doc.about)},\n  "files": {\n${rows.join(',\n')}\n  }\n}\n`);
  console.log(`wrote the timings of ${results.length} files to ${path.relative(root, DURATIONS_FILE)}`);
}

/** Where tsc (tsconfig.json, outDir dist/) writes the compiled copy of a source: test/a.test.ts -> dist/test/a.test.js. */
const compiledPath = (rel) => path.join('dist', rel).replace(/\.ts$/, '.js');

/** The first of `sources` with no compiled copy newer than itself, or null when all are built. */
function firstStale(sources) {
  for (const f of sources) {
    let built = 0;
    try {
      built = statSync(path.join(root, compiledPath(path.relative(root, f)))).mtimeMs;
    } catch {
      // not compiled
    }
    if (built < statSync(f).mtimeMs) return path.relative(root, f);
  }
  return null;
}

/**
 * What of dist/ is current. `src`: every source of src/ compiled after its last change, so the
 * Parla processes the tests start run the compiled CLI (test/helpers/parla-command.ts). `tests`:
 * besides, every TypeScript file the tests load (test/, bench/, the client SDK's sources), so each
 * test file runs as its compiled copy (decision #102: ~1 CPU s less per file than tsx hooking and
 * compiling each module). `reason`: the first source newer than its compiled file, when not both.
 * `npm test` compiles them all first (scripts/test.sh); a file edited since runs everything through tsx.
 */
function compiledState() {
  const ts = (dir) =>
    walkAll(path.join(root, dir)).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.includes(`${path.sep}dashboard${path.sep}web${path.sep}`),
    );
  const srcStale = firstStale(ts('src'));
  if (srcStale) return { src: false, tests: false, reason: srcStale };
  const testStale = firstStale([...ts('test'), ...ts('bench'), ...ts(path.join('packages', 'client', 'src'))]);
  return { src: true, tests: !testStale, reason: testStale };
}

const fmt = (s) => s.toFixed(1).padStart(7);

async function main() {
  const { filters, passThrough, jobs, saveDurations } = parseArgs(process.argv.slice(2));
  const idle = readJson(DURATIONS_FILE, { files: {} }).files;
  const local = readJson(TIMES_FILE, {});
  const found = walk(path.join(root, 'test')).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
  const files = classify(
    found.map((file) => path.relative(root, file)),
    (rel) => idle[rel],
  ).map((kind, i) => ({ file: found[i], ...kind }));
  if (files.length === 0) {
    console.error('no test files matched');
    process.exit(1);
  }
  // Longest first, by the idle figures (one scale for every file; this machine's last run for a
  // file they do not have yet; unknown files first: they may be long).
  const wallOf = (rel) => idle[rel]?.[0] ?? (typeof local[rel] === 'number' ? local[rel] : Infinity);
  files.sort((a, b) => wallOf(b.rel) - wallOf(a.rel) || a.rel.localeCompare(b.rel));
  const measuring = new Set(files.filter((f) => f.measuring).map((f) => f.file));

  const usageDir = mkdtempSync(path.join(tmpdir(), 'parla-test-usage-'));
  // Read-only fixtures that are costly to make are made once per run here (test/helpers/sherpa-models.ts).
  const sharedDir = mkdtempSync(path.join(tmpdir(), 'parla-test-shared-'));
  const load = loadavg()[0];
  const started = performance.now();
  const compiled = compiledState();
  console.log(`test: ${files.length} files, ${jobs} at a time (load average ${load.toFixed(2)})`);
  console.log(
    compiled.tests
      ? 'test: the test files and the Parla processes they start run compiled (dist/ is newer than every source)\n'
      : compiled.src
        ? `test: the test files run through tsx (${compiled.reason} is newer than dist/; \`npm run build:tests\` makes them cheaper), the Parla processes they start compiled\n`
        : `test: the test files and the Parla processes they start run through tsx (${compiled.reason} is newer than dist/; \`npm run build:tests\` makes them cheaper)\n`,
  );
  const results = await schedule(files, { jobs }, async (file) => {
    const r = await runFile(file, measuring.has(file), passThrough, usageDir, sharedDir, compiled);
    process.stdout.write(`▶ ${r.rel} (${r.seconds.toFixed(1)} s)\n${r.output.trimEnd()}\n\n`);
    return r;
  });
  const wall = (performance.now() - started) / 1000;
  rmSync(usageDir, { recursive: true, force: true });
  rmSync(sharedDir, { recursive: true, force: true });

  const total = Object.fromEntries(COUNTERS.map((c) => [c, 0]));
  const failed = [];
  for (const r of results) {
    const s = summaryOf(r.output);
    if (s) for (const c of COUNTERS) total[c] += s[c] ?? 0;
    const broken = r.code !== 0 || !s;
    // A file that failed outside any test (it did not load, or crashed, or was stopped) counts as one failed test.
    if (broken && (!s || s.fail === 0)) {
      total.tests += 1;
      total.fail += 1;
    }
    if (broken) failed.push(r);
  }

  console.log('Time per file, slowest first (wall s; CPU s of the test process and of the programs it ran):');
  const byRel = new Map(files.map((f) => [f.rel, f]));
  let cpuSum = 0;
  for (const r of [...results].sort((a, b) => b.seconds - a.seconds)) {
    const cpu = r.usage ? r.usage.cpu : null;
    const children = r.usage ? r.usage.children : null;
    if (cpu !== null) cpuSum += cpu + (children ?? 0);
    const cpuText = cpu === null ? '      ?' : fmt(cpu);
    const childText = children === null ? '' : ` +${fmt(children).trim()}`;
    const kind = byRel.get(r.rel);
    const note = `${kind.measuring ? ' (measuring)' : ''}${kind.longWaiter ? ' (quiet, long: no slot)' : ''}`;
    console.log(`${fmt(r.seconds)} ${cpuText}${childText.padEnd(8)} ${r.rel}${note}${failed.includes(r) ? '  ✖' : ''}`);
  }
  console.log(
    `${fmt(wall)} wall for the run, ${cpuSum.toFixed(1)} CPU s in all, ${jobs} files at a time, load average ${load.toFixed(2)} at the start\n`,
  );

  try {
    mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
    writeFileSync(
      TIMES_FILE,
      JSON.stringify({ ...local, ...Object.fromEntries(results.map((r) => [r.rel, Number(r.seconds.toFixed(1))])) }, null, 1),
    );
  } catch {
    // the times only order the next run
  }
  if (saveDurations) saveIdleDurations(results);

  if (failed.length > 0) {
    console.log(`✖ failing files (${failed.length}):\n`);
    for (const r of failed) {
      const why = r.signal ? `ended by ${r.signal}` : `exit code ${r.code}`;
      const recap = failureRecap(r.output);
      const tail = stripAnsi(r.output).trimEnd().split('\n').slice(-20).join('\n');
      console.log(`✖ ${r.rel} (${why})\n${recap || `no test failed in it; the end of its output:\n${tail}`}\n`);
    }
  }
  for (const c of COUNTERS) console.log(`ℹ ${c} ${total[c]}`);
  console.log(`ℹ duration_ms ${(wall * 1000).toFixed(3)}`);
  process.exitCode = failed.length > 0 || total.fail > 0 ? 1 : 0;
}

await main();
