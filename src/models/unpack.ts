// Unpacks a model archive (.tar.bz2, .tar.gz, .tgz, .tar, .zip) into a folder, refusing the whole
// archive when any entry would land outside it: absolute paths, `..` segments, links whose target
// leaves the folder, device files. tar (node-tar, which also inflates gzip), unbzip2-stream for the
// bzip2 layer of sherpa-onnx's release archives, yauzl for zip.

import { createReadStream, createWriteStream, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import * as tar from 'tar';
import bz2 from 'unbzip2-stream';
import yauzl from 'yauzl';

export class UnsafeArchiveError extends Error {}
export class ArchiveError extends Error {}

export type ArchiveType = 'tar.bz2' | 'tar.gz' | 'tar' | 'zip';

export function archiveType(file: string): ArchiveType | null {
  const f = file.toLowerCase();
  if (f.endsWith('.tar.bz2') || f.endsWith('.tbz2')) return 'tar.bz2';
  if (f.endsWith('.tar.gz') || f.endsWith('.tgz')) return 'tar.gz';
  if (f.endsWith('.tar')) return 'tar';
  if (f.endsWith('.zip')) return 'zip';
  return null;
}

/** The archive name without its extension (the folder name when nothing else names it). */
export function archiveStem(file: string): string {
  return path.basename(file).replace(/\.(tar\.bz2|tbz2|tar\.gz|tgz|tar|zip)$/i, '');
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
export async function unpackArchive(archive: string, dest: string): Promise<string> {
  const type = archiveType(archive);
  if (!type) throw new ArchiveError(`${path.basename(archive)}: not a .tar.bz2, .tar.gz, .tar or .zip archive`);
  const root = path.resolve(dest);
  mkdirSync(root, { recursive: true });
  if (type === 'zip') await unzip(archive, root);
  else await untar(archive, root, type);
  const top = readdirSync(root);
  if (top.length === 0) throw new ArchiveError(`${path.basename(archive)} is empty`);
  if (top.length === 1 && statSync(path.join(root, top[0]!)).isDirectory()) return path.join(root, top[0]!);
  return root;
}

async function untar(archive: string, root: string, type: ArchiveType): Promise<void> {
  let refusal: string | null = null;
  const unpack: tar.Unpack = new tar.Unpack({
    cwd: root,
    strict: true,
    preserveOwner: false,
    filter: (name, entry) => {
      if (refusal) return false;
      const e = entry as tar.ReadEntry;
      const problem = entryProblem(root, name, e.type, e.linkpath);
      if (problem) {
        refusal = problem;
        unpack.abort(new UnsafeArchiveError(problem));
        return false;
      }
      return true;
    },
  });
  const source: Readable[] = [createReadStream(archive)];
  if (type === 'tar.bz2') source.push(bz2());
  try {
    await pipeline([...source, unpack as unknown as NodeJS.WritableStream]);
  } catch (err) {
    if (refusal) throw new UnsafeArchiveError(`unsafe archive refused: ${refusal}`);
    throw new ArchiveError(`cannot unpack ${path.basename(archive)}: ${(err as Error).message}`);
  }
  if (refusal) throw new UnsafeArchiveError(`unsafe archive refused: ${refusal}`);
}

function unzip(archive: string, root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.open(archive, { lazyEntries: true, validateEntrySizes: true }, (openErr, zip) => {
      if (openErr || !zip) {
        reject(new ArchiveError(`cannot open ${path.basename(archive)}: ${openErr?.message ?? 'unknown error'}`));
        return;
      }
      const fail = (err: Error) => {
        zip.close();
        reject(/invalid relative path|absolute path/i.test(err.message) ? new UnsafeArchiveError(`unsafe archive refused: ${err.message}`) : err instanceof UnsafeArchiveError || err instanceof ArchiveError ? err : new ArchiveError(`cannot unpack ${path.basename(archive)}: ${err.message}`));
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
        const isDir = entry.fileName.endsWith('/');
        const problem = mode === 0o120000 ? `"${entry.fileName}" is a symbolic link (not accepted in zip archives)` : entryProblem(root, entry.fileName, isDir ? 'Directory' : 'File');
        if (problem) {
          fail(new UnsafeArchiveError(`unsafe archive refused: ${problem}`));
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
          pipeline(stream, createWriteStream(target, { flags: 'wx' })).then(() => zip.readEntry(), fail);
        });
      });
      zip.readEntry();
    });
  });
}
