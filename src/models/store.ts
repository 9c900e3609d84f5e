// The installed models: folders under PARLA_MODELS_DIR (`stt/<name>/`, `tts/<name>/`, `turn/<name>/`, `speaker/<name>/`) and the
// manifest (`manifest.json` there) that records, for each model the manager installed or verified,
// its format, the archive's checksum and the result of the loading check. Only models recorded with
// status "ok" passed that check; `verifiedModels()` is what a server should load. The manifest is
// replaced atomically (write, then rename), so a reader never sees half a file, and changed under a
// lock file, so two `parla models` commands at once do not lose each other's entries.

import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { CheckFigures } from './check.js';
import { MODEL_FORMATS, type ModelFormat, type ModelKind } from './formats.js';
import type { ModelFiles } from './probe.js';

export interface ModelRecord {
  name: string;
  kind: ModelKind;
  format: ModelFormat;
  languages: string[];
  /** File names relative to the model folder, as the loader is given them. */
  files: ModelFiles;
  sizeBytes: number;
  source: { url: string | null; archive: string | null; sha256: string | null; catalog: string | null };
  status: 'ok' | 'failed';
  /** Why the model is not usable (status "failed"). */
  reason?: string;
  check: CheckFigures | null;
  installedAt: string;
  verifiedAt: string | null;
}

interface Manifest {
  version: 1;
  models: Record<string, ModelRecord>;
}

export class ManifestError extends Error {}

export const KINDS: readonly ModelKind[] = ['stt', 'tts', 'turn', 'speaker'];

export function manifestPath(modelsDir: string): string {
  return path.join(modelsDir, 'manifest.json');
}

export function modelDir(modelsDir: string, kind: ModelKind, name: string): string {
  return path.join(modelsDir, kind, name);
}

export function readManifest(modelsDir: string): Manifest {
  const file = manifestPath(modelsDir);
  if (!existsSync(file)) return { version: 1, models: {} };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ManifestError(`${file} is not valid JSON (${(err as Error).message})`);
  }
  const m = data as Partial<Manifest>;
  if (!m || m.version !== 1 || typeof m.models !== 'object' || m.models === null)
    throw new ManifestError(`${file}: not a models manifest (version 1)`);
  for (const [name, rec] of Object.entries(m.models)) {
    if (
      !rec ||
      rec.name !== name ||
      !KINDS.includes(rec.kind) ||
      !MODEL_FORMATS.includes(rec.format) ||
      (rec.status !== 'ok' && rec.status !== 'failed')
    ) {
      throw new ManifestError(`${file}: the entry "${name}" is malformed`);
    }
  }
  return m as Manifest;
}

function writeManifest(modelsDir: string, manifest: Manifest): void {
  mkdirSync(modelsDir, { recursive: true });
  const file = manifestPath(modelsDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, file);
}

const LOCK_WAIT_MS = 10_000;
/** A lock older than this was left by a process that died holding it. */
const LOCK_STALE_MS = 30_000;

/** Read-modify-write of the manifest under `manifest.json.lock` (created exclusively). */
function updateManifest(modelsDir: string, change: (m: Manifest) => void): void {
  mkdirSync(modelsDir, { recursive: true });
  const lock = `${manifestPath(modelsDir)}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) unlinkSync(lock);
      } catch {
        // it went away meanwhile
      }
      if (Date.now() > deadline)
        throw new ManifestError(`${lock} is held by another \`parla models\` command; try again (or delete it if none runs)`);
      // A short synchronous pause: the commands are one-shot CLI processes.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
  try {
    const m = readManifest(modelsDir);
    change(m);
    writeManifest(modelsDir, m);
  } finally {
    rmSync(lock, { force: true });
  }
}

export function saveRecord(modelsDir: string, record: ModelRecord): void {
  updateManifest(modelsDir, (m) => {
    m.models[record.name] = record;
  });
}

export function deleteRecord(modelsDir: string, name: string): void {
  updateManifest(modelsDir, (m) => {
    delete m.models[name];
  });
}

/** Models that passed the loading check and whose folder is still there: what a server may load. */
export function verifiedModels(modelsDir: string): Array<ModelRecord & { dir: string }> {
  return Object.values(readManifest(modelsDir).models)
    .filter((r) => r.status === 'ok' && existsSync(modelDir(modelsDir, r.kind, r.name)))
    .map((r) => ({ ...r, dir: modelDir(modelsDir, r.kind, r.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface InstalledModel {
  name: string;
  kind: ModelKind | null;
  dir: string | null;
  record: ModelRecord | null;
  /** "ok", or why not. */
  status: string;
}

/** Every model folder and every manifest entry, with its status. */
export function installedModels(modelsDir: string): InstalledModel[] {
  const manifest = readManifest(modelsDir);
  const out = new Map<string, InstalledModel>();
  for (const kind of KINDS) {
    const root = path.join(modelsDir, kind);
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root)) {
      const dir = path.join(root, name);
      if (!statSync(dir).isDirectory()) continue;
      const record = manifest.models[name] ?? null;
      const status = !record
        ? 'not verified (not installed by `parla models pull`; run `parla models verify ' + name + '`)'
        : record.kind !== kind
          ? `recorded as ${record.kind}, found in ${kind}/`
          : record.status === 'ok'
            ? 'ok'
            : `failed: ${record.reason ?? 'unknown'}`;
      out.set(name, { name, kind, dir, record, status });
    }
  }
  for (const record of Object.values(manifest.models)) {
    if (out.has(record.name)) continue;
    out.set(record.name, {
      name: record.name,
      kind: record.kind,
      dir: null,
      record,
      status: record.status === 'failed' ? `failed: ${record.reason ?? 'unknown'}` : 'missing: the folder is gone',
    });
  }
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function folderSize(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p);
    total += st.isDirectory() ? folderSize(p) : st.size;
  }
  return total;
}

export function removeModel(modelsDir: string, name: string): boolean {
  let found = false;
  for (const kind of KINDS) {
    const dir = modelDir(modelsDir, kind, name);
    if (existsSync(dir)) {
      rmSync(dir, { recursive: true, force: true });
      found = true;
    }
  }
  if (readManifest(modelsDir).models[name]) {
    deleteRecord(modelsDir, name);
    found = true;
  }
  return found;
}
