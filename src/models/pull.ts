// `parla models pull`: fetch an archive (an upstream model's name as `parla models catalog` lists them, src/models/upstream.ts; a URL; or a local file), check its sha256,
// unpack it safely into a staging folder, decide its format, load it once in a child process, and
// only then move it to `<kind>/<name>/` and record it "ok" in the manifest. A model that fails any
// step is reported and never lands where the server looks for models; a failed loading check is
// recorded ("failed" and why) so `parla models list` shows it.

import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { upstreamModel, type UpstreamModel } from './upstream.js';
import { checkModelInChild, type CheckFigures } from './check.js';
import { downloadFile, stderrProgress } from './download.js';
import { MODEL_NAME } from './formats.js';
import { probeModel, ProbeError } from './probe.js';
import { folderSize, KINDS, modelDir, readManifest, saveRecord, type ModelRecord } from './store.js';
import { archiveStem, archiveType, unpackArchive, unpackLimits } from './unpack.js';

/** A failure the operator must read: exit code 1 and this message. */
export class PullError extends Error {}

export interface PullOptions {
  source: string;
  sha256?: string;
  name?: string;
  log?: (line: string) => void;
  checkTimeoutMs?: number;
}

interface Source {
  url: string | null;
  file: string | null;
  archiveName: string;
  entry: UpstreamModel | null;
}

function resolveSource(source: string): Source {
  const entry = upstreamModel(source);
  if (entry) return { url: entry.url, file: null, archiveName: path.basename(new URL(entry.url).pathname), entry };
  if (/^https?:\/\//i.test(source)) {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      throw new PullError(`"${source}" is not a valid URL`);
    }
    return { url: url.href, file: null, archiveName: archiveNameOf(url), entry: null };
  }
  const file = source.startsWith('file://') ? fileURLToPath(source) : path.resolve(source);
  if (existsSync(file) && statSync(file).isFile()) return { url: null, file, archiveName: path.basename(file), entry: null };
  throw new PullError(`"${source}" is neither a catalog model (parla models catalog), an http(s) URL, nor an archive file`);
}

/**
 * The archive's name from a URL's last path segment: for messages, the record and the archive type
 * only, never a path (the download's file name is made from the model name: issue 30, item 11, a
 * "%2F.." there deleted a file outside the models folder). A name that decodes to a path
 * separator, a NUL or a dot-only name is refused.
 */
export function archiveNameOf(url: URL): string {
  const last = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    throw new PullError(`the URL's file name "${last.slice(0, 100)}" is not valid percent-encoding`);
  }
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name) || name.length > 255) {
    throw new PullError(
      `the URL's file name "${last.slice(0, 100)}" is not a plain archive name (no path separators or dot-only names); use a URL ending in the archive's name`,
    );
  }
  return name;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export async function pullModel(modelsDir: string, opts: PullOptions): Promise<ModelRecord> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const src = resolveSource(opts.source);
  if (!archiveType(src.archiveName))
    throw new PullError(`${src.archiveName}: not a .tar.bz2, .tar.gz, .tar or .zip archive, nor an .onnx file`);
  const expected = (opts.sha256 ?? src.entry?.sha256 ?? null)?.toLowerCase() ?? null;
  if (expected !== null && !/^[0-9a-f]{64}$/.test(expected)) throw new PullError('--sha256 must be 64 hexadecimal digits');
  const name = opts.name ?? src.entry?.name ?? archiveStem(src.archiveName).replace(/^sherpa-onnx-/, '');
  if (!MODEL_NAME.test(name)) throw new PullError(`"${name}" cannot be a model name (letters, digits, ".", "_", "-"; use --name)`);
  for (const kind of KINDS) {
    if (existsSync(modelDir(modelsDir, kind, name)))
      throw new PullError(`a model named ${name} is already installed (${kind}/${name}); remove it first or choose --name`);
  }

  // 1. The archive.
  let archive: string;
  let downloaded = false;
  if (src.url) {
    const downloads = path.join(modelsDir, '.downloads');
    mkdirSync(downloads, { recursive: true });
    // Named after the (checked) model name and the archive type, never after the URL.
    archive = path.join(downloads, `${name}.${archiveType(src.archiveName)!}`);
    if (!existsSync(archive)) await downloadFile(src.url, archive, stderrProgress(src.url));
    downloaded = true;
  } else archive = src.file!;

  try {
    return await installArchive(modelsDir, {
      archive,
      downloaded,
      name,
      expected,
      src,
      log,
      ...(opts.checkTimeoutMs ? { checkTimeoutMs: opts.checkTimeoutMs } : {}),
    });
  } finally {
    // A downloaded archive is only kept while it downloads (.part); installed, refused or failed, it goes.
    if (downloaded) rmSync(archive, { force: true });
  }
}

async function installArchive(
  modelsDir: string,
  job: {
    archive: string;
    downloaded: boolean;
    name: string;
    expected: string | null;
    src: Source;
    log: (line: string) => void;
    checkTimeoutMs?: number;
  },
): Promise<ModelRecord> {
  const { archive, downloaded, name, expected, src, log } = job;
  // 2. Its checksum.
  const actual = await sha256File(archive);
  if (expected !== null && actual !== expected) {
    throw new PullError(
      `checksum mismatch for ${src.archiveName}: expected sha256 ${expected}, got ${actual}${downloaded ? '; the download was deleted' : ''}`,
    );
  }
  log(
    expected
      ? `sha256 ok: ${actual}`
      : `sha256 of ${src.archiveName}: ${actual} (no checksum was given to compare; pass --sha256 to check one)`,
  );

  // 3. Unpacked into staging, never straight into stt/ or tts/. Staging left by an interrupted
  // pull of the same name goes first.
  const stagingRoot = path.join(modelsDir, '.staging');
  if (existsSync(stagingRoot))
    for (const old of readdirSync(stagingRoot).filter((d) => d.startsWith(`${name}.`)))
      rmSync(path.join(stagingRoot, old), { recursive: true, force: true });
  const staging = path.join(stagingRoot, `${name}.${process.pid}`);
  try {
    const root = await unpackArchive(archive, staging, unpackLimits(statSync(archive).size), src.archiveName);
    let probed;
    try {
      probed = probeModel(root);
    } catch (err) {
      if (err instanceof ProbeError) throw new PullError(`${src.archiveName} holds no supported model: ${err.message}`);
      throw err;
    }
    const languages = probed.languages.length ? probed.languages : (src.entry?.languages ?? []);
    log(
      `${name}: ${probed.format} (${probed.kind}${languages.length ? `, ${languages.join(', ')}` : ''}); loading it once in a child process`,
    );

    // 4. Loaded once where a crash cannot hurt.
    const check = await checkModelInChild(root, probed, { ...(job.checkTimeoutMs ? { timeoutMs: job.checkTimeoutMs } : {}) });
    const now = new Date().toISOString();
    const record: ModelRecord = {
      name,
      kind: probed.kind,
      format: probed.format,
      languages,
      files: probed.files,
      sizeBytes: folderSize(root),
      source: { url: src.url, archive: src.archiveName, sha256: actual, catalog: src.entry?.name ?? null },
      status: check.ok ? 'ok' : 'failed',
      ...(check.ok ? {} : { reason: check.reason }),
      check: check.ok ? figures(check) : null,
      installedAt: now,
      verifiedAt: now,
    };
    if (!check.ok) {
      saveRecord(modelsDir, record);
      throw new PullError(`${name} failed the loading check and was not installed: ${check.reason}`);
    }
    const dest = modelDir(modelsDir, probed.kind, name);
    mkdirSync(path.dirname(dest), { recursive: true });
    renameSync(root, dest);
    saveRecord(modelsDir, record);
    return record;
  } finally {
    await removeStaging(staging);
  }
}

/**
 * Removes this pull's staging folder on every path out. An unpacker stopped half-way may still have
 * file operations in flight that create entries after a removal has listed the folder (then rmdir
 * fails with ENOTEMPTY); node-tar says nothing when its last pending write of an aborted archive
 * has settled, and rmSync's own retries only repeat the rmdir, and block the event loop those
 * operations finish on. So the whole removal is retried here, waiting longer between tries, until
 * it succeeds or STAGING_REMOVAL_MS has passed: a refused 20,000-entry archive still had writes in
 * flight 3 s after the refusal on a slow machine. What still cannot be removed then is said
 * plainly rather than as a raw system error.
 */
const STAGING_REMOVAL_MS = 60_000;

async function removeStaging(staging: string): Promise<void> {
  const deadline = Date.now() + STAGING_REMOVAL_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await rm(staging, { recursive: true, force: true });
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOTEMPTY' || code === 'EBUSY') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, Math.min(1000, 100 * attempt)));
        continue;
      }
      process.stderr.write(`could not remove the staging folder ${staging} (${code ?? (err as Error).message}); delete it by hand\n`);
      return;
    }
  }
}

function figures(c: CheckFigures): CheckFigures {
  return {
    loadMs: c.loadMs,
    runMs: c.runMs,
    audioSeconds: c.audioSeconds,
    rtf: c.rtf,
    rssBeforeMB: c.rssBeforeMB,
    rssLoadedMB: c.rssLoadedMB,
    peakRssMB: c.peakRssMB,
    sherpaVersion: c.sherpaVersion,
  };
}

/** `parla models verify`: the loading check again on an installed folder; the manifest is updated. */
export async function verifyModel(
  modelsDir: string,
  name: string,
  opts: { checkTimeoutMs?: number; seconds?: number } = {},
): Promise<ModelRecord> {
  const existing = readManifest(modelsDir).models[name] ?? null;
  const kind = KINDS.find((k) => existsSync(modelDir(modelsDir, k, name)));
  if (!kind) throw new PullError(`no installed model named ${name} (parla models list)`);
  const dir = modelDir(modelsDir, kind, name);
  let probed;
  try {
    probed = probeModel(dir);
  } catch (err) {
    if (err instanceof ProbeError) throw new PullError(`${name}: ${err.message}`);
    throw err;
  }
  if (probed.kind !== kind) throw new PullError(`${name} is a ${probed.kind} model but sits in ${kind}/`);
  const check = await checkModelInChild(dir, probed, opts);
  const now = new Date().toISOString();
  const record: ModelRecord = {
    name,
    kind,
    format: probed.format,
    languages: probed.languages.length ? probed.languages : (existing?.languages ?? []),
    files: probed.files,
    sizeBytes: folderSize(dir),
    source: existing?.source ?? { url: null, archive: null, sha256: null, catalog: null },
    status: check.ok ? 'ok' : 'failed',
    ...(check.ok ? {} : { reason: check.reason }),
    check: check.ok ? figures(check) : null,
    installedAt: existing?.installedAt ?? now,
    verifiedAt: now,
  };
  saveRecord(modelsDir, record);
  return record;
}
