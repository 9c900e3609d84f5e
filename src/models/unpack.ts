// Unpacks a model archive (.tar.bz2, .tar.gz, .tgz, .tar, .zip) into a folder, refusing the whole
// archive when any entry would land outside it: absolute paths, `..` segments, links whose target
// leaves the folder, device files. tar (node-tar, which also inflates gzip), the system's bzip2
// program for the bzip2 layer of sherpa-onnx's release archives, yauzl for zip.
//
// Archive bombs (issue 30, item 11): every format is capped in total unpacked bytes and in
// entries (UnpackLimits: by default 20 times the archive's size, at least 64 MiB and at most
// 64 GiB, and 20,000 entries; docs/engines.md), counted from the declared sizes before an entry is
// written and from the bytes really written, and everything goes to disk as a stream. The bzip2
// layer runs in a child process (`bzip2 -dc`) behind a pipe: the pipe's backpressure bounds its
// memory, where the JavaScript decoder used before decoded a whole archive at once into memory
// (854 bytes became 1 GB on disk and 2.7 GB of RSS).

import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, createReadStream, createWriteStream, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import * as tar from 'tar';
import yauzl from 'yauzl';

export class UnsafeArchiveError extends Error {}
export class ArchiveError extends Error {}

export interface UnpackLimits {
  /** Most bytes the unpacked files may hold together. */
  maxBytes: number;
  /** Most entries (files, folders, links). */
  maxEntries: number;
}

/** How many times its own size an archive may unpack to (real model archives: about 1 to 4). */
export const MAX_UNPACK_RATIO = 20;
export const MIN_UNPACK_BYTES = 64 * 1024 * 1024;
export const MAX_UNPACK_BYTES = 64 * 1024 * 1024 * 1024;
export const MAX_UNPACK_ENTRIES = 20_000;

/** The limits for an archive of `archiveBytes`. */
export function unpackLimits(archiveBytes: number): UnpackLimits {
  return {
    maxBytes: Math.min(MAX_UNPACK_BYTES, Math.max(MIN_UNPACK_BYTES, archiveBytes * MAX_UNPACK_RATIO)),
    maxEntries: MAX_UNPACK_ENTRIES,
  };
}

const mib = (n: number) => `${(n / 1048576).toFixed(0)} MiB`;
const tooBig = (label: string, limits: UnpackLimits) =>
  new UnsafeArchiveError(
    `unsafe archive refused: ${label} unpacks to more than ${mib(limits.maxBytes)} (${MAX_UNPACK_RATIO} times its size, at least ${mib(MIN_UNPACK_BYTES)}): an archive bomb, or not a model archive`,
  );
const tooMany = (label: string, limits: UnpackLimits) =>
  new UnsafeArchiveError(`unsafe archive refused: ${label} has more than ${limits.maxEntries} entries`);

/** Counts the bytes going through; more than `max` fails the stream with `error()`. */
function byteCap(max: number, error: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) done(error());
      else done(null, chunk);
    },
  });
}

/** `onnx`: one bare model file (Smart Turn is published so), installed as a folder holding it. */
export type ArchiveType = 'tar.bz2' | 'tar.gz' | 'tar' | 'zip' | 'onnx';

export function archiveType(file: string): ArchiveType | null {
  const f = file.toLowerCase();
  if (f.endsWith('.tar.bz2') || f.endsWith('.tbz2')) return 'tar.bz2';
  if (f.endsWith('.tar.gz') || f.endsWith('.tgz')) return 'tar.gz';
  if (f.endsWith('.tar')) return 'tar';
  if (f.endsWith('.zip')) return 'zip';
  if (f.endsWith('.onnx')) return 'onnx';
  return null;
}

/** The archive name without its extension (the folder name when nothing else names it). */
export function archiveStem(file: string): string {
  return path.basename(file).replace(/\.(tar\.bz2|tbz2|tar\.gz|tgz|tar|zip|onnx)$/i, '');
}

/** Why an entry may not be unpacked into `root`, or null when it may. */
export function entryProblem(root: string, name: string, type: string, linkTarget?: string): string | null {
  if (name.includes('\0')) return `entry name with a NUL byte`;
  if (path.isAbsolute(name) || /^[A-Za-z]:/.test(name) || name.startsWith('\\')) return `"${name}" is an absolute path`;
  if (name.split(/[\\/]/).includes('..')) return `"${name}" would land outside the target folder`;
  const target = path.resolve(root, name);
  if (target !== root && !target.startsWith(root + path.sep)) return `"${name}" would land outside the target folder`;
  if (type === 'SymbolicLink' || type === 'Link') {
    if (!linkTarget) return `"${name}" is a link without a target`;
    if (path.isAbsolute(linkTarget)) return `"${name}" links to the absolute path "${linkTarget}"`;
    const base = type === 'SymbolicLink' ? path.dirname(target) : root;
    const resolved = path.resolve(base, linkTarget);
    if (resolved !== root && !resolved.startsWith(root + path.sep)) return `"${name}" links outside the target folder ("${linkTarget}")`;
    return null;
  }
  if (!['File', 'OldFile', 'ContiguousFile', 'Directory'].includes(type)) return `"${name}" is a ${type} entry`;
  return null;
}

/**
 * Unpacks `archive` into `dest` (created; should be empty) and returns the model folder: `dest`, or
 * the single folder the archive holds (sherpa-onnx's archives hold one top-level folder).
 */
export async function unpackArchive(archive: string, dest: string, given?: UnpackLimits, label = path.basename(archive)): Promise<string> {
  const type = archiveType(archive);
  if (!type) throw new ArchiveError(`${label}: not a .tar.bz2, .tar.gz, .tar or .zip archive, nor an .onnx file`);
  const limits = given ?? unpackLimits(statSync(archive).size);
  const root = path.resolve(dest);
  mkdirSync(root, { recursive: true });
  if (type === 'onnx') copyFileSync(archive, path.join(root, 'model.onnx'));
  else if (type === 'zip') await unzip(archive, root, limits, label);
  else await untar(archive, root, type, limits, label);
  const top = readdirSync(root);
  if (top.length === 0) throw new ArchiveError(`${label} is empty`);
  if (top.length === 1 && statSync(path.join(root, top[0]!)).isDirectory()) return path.join(root, top[0]!);
  return root;
}

async function untar(archive: string, root: string, type: ArchiveType, limits: UnpackLimits, label: string): Promise<void> {
  let refusal: Error | null = null;
  let entries = 0;
  let declared = 0;
  const refuse = (err: Error) => {
    refusal ??= err;
    unpack.abort(err);
  };
  const unpack: tar.Unpack = new tar.Unpack({
    cwd: root,
    strict: true,
    preserveOwner: false,
    filter: (name, entry) => {
      if (refusal) return false;
      const e = entry as tar.ReadEntry;
      const problem = entryProblem(root, name, e.type, e.linkpath);
      if (problem) {
        refuse(new UnsafeArchiveError(`unsafe archive refused: ${problem}`));
        return false;
      }
      // The declared size, before a byte of the entry is written (node-tar writes exactly that many).
      declared += e.size ?? 0;
      if (++entries > limits.maxEntries) refuse(tooMany(label, limits));
      else if (declared > limits.maxBytes) refuse(tooBig(label, limits));
      return refusal === null;
    },
  });
  // The tar stream itself (headers, padding and data) may be at most the cap plus room for the
  // headers of every entry allowed: a bomb of empty entries or padding is cut there too.
  const cap = byteCap(limits.maxBytes + (limits.maxEntries + 16) * 1024, () => tooBig(label, limits));
  const bunzip = type === 'tar.bz2' ? bzip2Decoder(archive, label) : null;
  const source: Readable = bunzip ? bunzip.stdout : createReadStream(archive);
  // Every file operation of the unpacker has settled before the caller removes the folder (a
  // removal racing its last writes failed with ENOTEMPTY and left staging behind).
  const closed = new Promise<void>((resolve) => {
    unpack.on('close', () => resolve());
    unpack.on('finish', () => resolve());
  });
  try {
    await pipeline([source, cap, unpack as unknown as NodeJS.WritableStream]);
    if (bunzip) await bunzip.done;
  } catch (err) {
    bunzip?.kill();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
    if (refusal) throw refusal;
    if (err instanceof UnsafeArchiveError || err instanceof ArchiveError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'TAR_SYMLINK_ERROR')
      throw new UnsafeArchiveError(`unsafe archive refused: ${label} writes an entry through a symbolic link (${(err as Error).message})`);
    throw new ArchiveError(`cannot unpack ${label}: ${(err as Error).message}`);
  }
  if (refusal) throw refusal;
}

/**
 * `bzip2 -dc` on the archive, in a child process: its output through a pipe, so a decoder far
 * ahead of the unpacker waits (bounded memory). `done` settles with the program's exit.
 */
function bzip2Decoder(archive: string, label: string): { stdout: Readable; done: Promise<void>; kill(): void } {
  const fd = openSync(archive, 'r');
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn('bzip2', ['-dc'], { stdio: [fd, 'pipe', 'pipe'] });
  } finally {
    closeSync(fd);
  }
  const stdout = child.stdout!;
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-500)));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ArchiveError(
          err.code === 'ENOENT'
            ? 'unpacking .tar.bz2 needs the bzip2 program (Debian package bzip2; scripts/setup.sh installs it)'
            : `bzip2: ${err.message}`,
        ),
      ),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new ArchiveError(`bzip2 could not decompress ${label}: ${stderr.trim() || `exit ${code}`}`)),
    );
  });
  done.catch(() => undefined);
  // A failure to start is the stream's failure too (the pipeline reports it).
  done.catch((err: Error) => stdout.destroy(err));
  return { stdout, done, kill: () => child.kill('SIGKILL') };
}

function unzip(archive: string, root: string, limits: UnpackLimits, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.open(archive, { lazyEntries: true, validateEntrySizes: true }, (openErr, zip) => {
      if (openErr || !zip) {
        reject(new ArchiveError(`cannot open ${label}: ${openErr?.message ?? 'unknown error'}`));
        return;
      }
      // The central directory says how many entries there are before any is read.
      if (zip.entryCount > limits.maxEntries) {
        zip.close();
        reject(tooMany(label, limits));
        return;
      }
      let declared = 0;
      let written = 0;
      const fail = (err: Error) => {
        zip.close();
        reject(
          /invalid relative path|absolute path/i.test(err.message)
            ? new UnsafeArchiveError(`unsafe archive refused: ${err.message}`)
            : err instanceof UnsafeArchiveError || err instanceof ArchiveError
              ? err
              : new ArchiveError(`cannot unpack ${label}: ${err.message}`),
        );
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
        const isDir = entry.fileName.endsWith('/');
        const problem =
          mode === 0o120000
            ? `"${entry.fileName}" is a symbolic link (not accepted in zip archives)`
            : entryProblem(root, entry.fileName, isDir ? 'Directory' : 'File');
        if (problem) {
          fail(new UnsafeArchiveError(`unsafe archive refused: ${problem}`));
          return;
        }
        // Declared sizes first (yauzl checks each entry's real size against its declared one).
        declared += entry.uncompressedSize;
        if (declared > limits.maxBytes) {
          fail(tooBig(label, limits));
          return;
        }
        const target = path.resolve(root, entry.fileName);
        if (isDir) {
          mkdirSync(target, { recursive: true });
          zip.readEntry();
          return;
        }
        mkdirSync(path.dirname(target), { recursive: true });
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) {
            fail(err ?? new Error('no data'));
            return;
          }
          // And the bytes really written, whatever the headers said.
          const cap = new Transform({
            transform(chunk: Buffer, _enc, done) {
              written += chunk.length;
              done(written > limits.maxBytes ? tooBig(label, limits) : null, chunk);
            },
          });
          pipeline(stream, cap, createWriteStream(target, { flags: 'wx' })).then(() => zip.readEntry(), fail);
        });
      });
      zip.readEntry();
    });
  });
}
