// eSpeak NG's own command-line program compiled to WebAssembly (npm `espeak-ng`, GPL-3.0-or-later,
// eSpeak NG 1.52-dev with its data embedded), run inside a worker thread. Why a second build of
// the same engine: the library build (@echogarden/espeak-ng-emscripten) is emscripten's wasm2js,
// 3-5x slower per core than native, while this one runs at about the native CLI's speed
// (docs/engines.md, bench/tts-engines.ts). It has no callbacks, so word timings still come from
// the library build (espeak-worker.ts).
//
// The program is written for one run per process: getopt's position, eSpeak's static state and
// stdio buffers all live in its linear memory. So the memory is copied right after the module
// starts, and every run begins by copying it back (32 MB, ~2 ms) instead of instantiating a new
// module (~250 ms). Files go through the module's in-memory file system.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodePcm16MonoWav } from '../../audio/wav.js';
import { voiceFileFor, type VoiceFile } from './voice-files.js';

// The project's TypeScript libs (ES2022 + @types/node) do not declare WebAssembly; what is used here:
interface WasmInstance {
  exports: unknown;
}
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<WasmInstance>;
};

interface ProgramModule {
  FS: {
    writeFile(p: string, data: string | Uint8Array): void;
    readFile(p: string): Uint8Array;
    unlink(p: string): void;
    readdir(p: string): string[];
    isDir(mode: number): boolean;
    stat(p: string): { mode: number };
    symlink(target: string, p: string): void;
    filesystems: { MEMFS?: { expandFileStorage?: (node: { contents: Uint8Array | null }, capacity: number) => void } };
  };
}

/** Where the package embeds eSpeak's data (its build's install prefix). */
const DATA_DIR = '/usr/local/share/espeak-ng-data';

interface ProgramExports {
  memory: { buffer: ArrayBuffer };
  malloc(n: number): number;
  stackSave(): number;
  stackRestore(p: number): void;
  __main_argc_argv(argc: number, argv: number): number;
}

interface Program {
  module: ProgramModule;
  exports: ProgramExports;
  /** Linear memory right after start-up, before the program ever ran. */
  pristine: Uint8Array;
  stackTop: number;
  /** stdout and stderr lines of the current run. */
  out: string[];
  err: string[];
}

let compiled: Promise<object> | null = null;
let program: Promise<Program> | null = null;

function packageFile(name: string): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('espeak-ng')), name);
}

/** Where the package's files are, or an error when it is not installed. */
export function programPackageFiles(): { js: string; wasm: string } {
  return { js: packageFile('espeak-ng.js'), wasm: packageFile('espeak-ng.wasm') };
}

async function start(): Promise<Program> {
  const files = programPackageFiles();
  compiled ??= WebAssembly.compile(readFileSync(files.wasm));
  const wasm = await compiled;
  const factory = (await import(files.js)).default as (opts: object) => Promise<ProgramModule>;
  let exports: ProgramExports | null = null;
  const p = { out: [] as string[], err: [] as string[] };
  const module = await factory({
    noInitialRun: true,
    print: (line: string) => p.out.push(line),
    printErr: (line: string) => p.err.push(line),
    instantiateWasm(imports: Record<string, Record<string, unknown>>, done: (i: WasmInstance) => void) {
      void WebAssembly.instantiate(wasm, withFixedClock(imports)).then((instance) => {
        exports = instance.exports as unknown as ProgramExports;
        done(instance);
      });
      return {};
    },
  });
  if (!exports) throw new Error('the espeak-ng program did not instantiate');
  const ex: ProgramExports = exports;
  addLowercaseVoiceNames(module.FS, `${DATA_DIR}/lang`);
  growFilesByDoubling(module.FS);
  return { module, exports: ex, pristine: new Uint8Array(ex.memory.buffer).slice(), stackTop: ex.stackSave(), ...p };
}

/**
 * eSpeak seeds the noise of its voices (breath, whisper, the female variants) from time(), so
 * the same request spoke different samples from one second to the next. The program reads a
 * fixed wall clock instead: identical input gives identical audio (docs/engines.md). Only the
 * date import is replaced; the monotonic clock stays real.
 */
function withFixedClock(imports: Record<string, Record<string, unknown>>): object {
  const fixed: Record<string, Record<string, unknown>> = {};
  for (const [name, table] of Object.entries(imports)) {
    fixed[name] = 'emscripten_date_now' in table ? { ...table, emscripten_date_now: () => 0 } : table;
  }
  return fixed;
}

/**
 * eSpeak lowercases the voice name it is given ("gmw/en-US" -> "gmw/en-us") before it opens the
 * file; on a case-sensitive file system that misses, and it falls back to reading every voice
 * and variant file (~1,600 file operations, ~6 ms of each run). A lowercase link per voice file
 * lets it open the file directly.
 */
function addLowercaseVoiceNames(fs: ProgramModule['FS'], dir: string): void {
  let names: string[];
  try {
    names = fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === '.' || name === '..') continue;
    const full = `${dir}/${name}`;
    if (fs.isDir(fs.stat(full).mode)) addLowercaseVoiceNames(fs, full);
    else if (name !== name.toLowerCase() && !names.includes(name.toLowerCase())) fs.symlink(full, `${dir}/${name.toLowerCase()}`);
  }
}

/**
 * emscripten's in-memory file system grows a file by 1.125x once it is past 1 MB, so the 7 MB WAV
 * of a 3,000-character text took ~17 reallocations past 1 MB (~55 MB allocated and copied); by
 * doubling throughout it takes 3 past 1 MB.
 */
function growFilesByDoubling(fs: ProgramModule['FS']): void {
  const memfs = fs.filesystems.MEMFS;
  const grow = memfs?.expandFileStorage;
  if (!memfs || !grow) return;
  memfs.expandFileStorage = (node, capacity) => {
    const now = node.contents?.length ?? 0;
    if (capacity > now) grow.call(memfs, node, Math.max(capacity, now * 2));
  };
}

function instance(): Promise<Program> {
  program ??= start();
  program.catch(() => (program = null));
  return program;
}

/** Whether this thread has started the program (tests check the main thread never does). */
export function programStartedInThisThread(): boolean {
  return program !== null;
}

export class ProgramError extends Error {}

const encoder = new TextEncoder();

/**
 * One run of `espeak-ng args...` from a fresh memory: writes `files`, runs, reads and removes the
 * `output` file; throws ProgramError on a non-zero exit. Synchronous once the program is started,
 * so two runs never interleave.
 */
export async function runProgram(
  args: string[],
  files: Record<string, string> = {},
  output?: string,
): Promise<{ out: string[]; file: Uint8Array | null }> {
  const p = await instance();
  for (const [name, data] of Object.entries(files)) p.module.FS.writeFile(name, data);
  const ex = p.exports;
  new Uint8Array(ex.memory.buffer).set(p.pristine);
  ex.stackRestore(p.stackTop);
  p.out.length = 0;
  p.err.length = 0;
  const argv = ['espeak-ng', ...args].map((a) => {
    const bytes = encoder.encode(`${a}\0`);
    const at = ex.malloc(bytes.length);
    new Uint8Array(ex.memory.buffer).set(bytes, at);
    return at;
  });
  const table = ex.malloc(4 * (argv.length + 1));
  const view = new Uint32Array(ex.memory.buffer, table, argv.length + 1);
  argv.forEach((at, i) => (view[i] = at));
  view[argv.length] = 0;
  let status: number;
  // emscripten's exit() sets the thread's process.exitCode as well as throwing: keep ours.
  const exitCode = process.exitCode;
  try {
    status = ex.__main_argc_argv(argv.length, table);
  } catch (err) {
    process.exitCode = exitCode;
    // exit() inside the program throws emscripten's ExitStatus; anything else (a trap) leaves the
    // module unusable, so the next run starts a new one.
    const exitStatus = (err as { status?: unknown })?.status;
    if (typeof exitStatus !== 'number') {
      program = null;
      throw err;
    }
    status = exitStatus;
  }
  if (status !== 0) {
    const message = p.err.find((l) => !l.startsWith('program exited')) ?? `exit status ${status}`;
    throw new ProgramError(message);
  }
  let file: Uint8Array | null = null;
  if (output) {
    file = p.module.FS.readFile(output);
    p.module.FS.unlink(output);
  }
  return { out: [...p.out], file };
}

let voiceList: Promise<VoiceFile[]> | null = null;

/** The program's language voices (`espeak-ng --voices`), variants excluded. */
export function programVoices(): Promise<VoiceFile[]> {
  voiceList ??= runProgram(['--voices']).then(({ out }) => {
    const voices = new Map<string, { file: string; languages: Array<{ name: string; priority: number }> }>();
    // " 5  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)"
    for (const line of out.slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 5) continue;
      const [pty, name, , , file] = fields as [string, string, string, string, string];
      const v = voices.get(file) ?? { file, languages: [] };
      v.languages.push({ name, priority: Number(pty) });
      for (const m of fields
        .slice(5)
        .join(' ')
        .matchAll(/\((\S+) (\d+)\)/g))
        v.languages.push({ name: m[1]!, priority: Number(m[2]) });
      voices.set(file, v);
    }
    return [...voices.values()];
  });
  voiceList.catch(() => (voiceList = null));
  return voiceList;
}

const resolved = new Map<string, string | null>();

/** The program's voice for "name+variant" ("en-gb+f3" -> "gmw/en+f3"), or null. */
async function resolveVoice(voice: string): Promise<string | null> {
  const [name = '', variant] = voice.split('+');
  let file = resolved.get(name.toLowerCase());
  if (file === undefined) {
    file = voiceFileFor(await programVoices(), name);
    resolved.set(name.toLowerCase(), file);
  }
  if (!file) return null;
  return variant ? `${file}+${variant}` : file;
}

/** Whether the program has this voice (the library build has a few more, e.g. Faroese). */
export async function programHasVoice(voice: string): Promise<boolean> {
  return (await resolveVoice(voice)) !== null;
}

export interface ProgramSpeech {
  /** Plain text, or SSML when `ssml` is set (plain text in it must already be escaped). */
  input: string;
  /**
   * SSML input (eSpeak's -m), only where markup is needed: in SSML mode eSpeak selects voices
   * through its whole voice list, ~10 ms more per run. Plain text is read as text, never as markup.
   */
  ssml: boolean;
  /** Voice file or language name, with an optional variant ("en-us+f3"). */
  voice: string;
  /** Words per minute, 80-450. */
  wpm: number;
  /** eSpeak's pitch base, 0-99. */
  pitch: number;
}

/** Synthesizes with the program: 22,050 Hz mono PCM. */
export async function speakWithProgram(s: ProgramSpeech): Promise<{ samples: Int16Array; sampleRate: number }> {
  const voice = await resolveVoice(s.voice);
  if (!voice) throw new ProgramError(`the eSpeak program has no voice ${s.voice}`);
  const args = [
    ...(s.ssml ? ['-m'] : []),
    '-b',
    '1',
    '-v',
    voice,
    '-s',
    String(s.wpm),
    '-p',
    String(s.pitch),
    '-w',
    '/out.wav',
    '-f',
    '/in.txt',
  ];
  const { file } = await runProgram(args, { '/in.txt': s.input }, '/out.wav');
  const audio = decodePcm16MonoWav(file!);
  if (!audio) throw new ProgramError('eSpeak wrote no 16-bit mono WAV');
  return audio;
}
