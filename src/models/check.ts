// The loading check: a model is loaded and run once in a child process (verify-child) before it is
// recorded as usable, because a malformed model ends the process that loads it from native code.
// The result is either the figures (load time, memory, real-time factor on the built-in sample) or
// the reason it failed, including the loader's last native diagnostics.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { ProbedModel } from './probe.js';

export interface CheckFigures {
  loadMs: number;
  runMs: number;
  audioSeconds: number;
  /** Processing time / audio duration on the built-in sample (below 1: faster than real time). */
  rtf: number | null;
  rssBeforeMB: number;
  rssLoadedMB: number;
  peakRssMB: number;
  sherpaVersion: string | null;
}

export type CheckResult = ({ ok: true } & CheckFigures) | { ok: false; reason: string };

const RESULT_PREFIX = 'PARLA_MODEL_CHECK ';

/** The child entry next to this file: .ts when run through tsx, the compiled .js otherwise. */
function childEntry(): string {
  const self = fileURLToPath(import.meta.url);
  return path.join(path.dirname(self), `verify-child${path.extname(self)}`);
}

export function checkModelInChild(
  dir: string,
  model: Pick<ProbedModel, 'format' | 'files'>,
  opts: { timeoutMs?: number; seconds?: number } = {},
): Promise<CheckResult> {
  const task = JSON.stringify({ dir, format: model.format, files: model.files, seconds: opts.seconds ?? 2 });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...loaderArgs(), childEntry(), task], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-65536)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-65536)));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `could not start the loader: ${err.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      let result: Record<string, unknown> | null = null;
      try {
        result = line ? (JSON.parse(line.slice(RESULT_PREFIX.length)) as Record<string, unknown>) : null;
      } catch {
        result = null;
      }
      if (code === 0 && result?.ok === true) {
        resolve(result as unknown as { ok: true } & CheckFigures);
        return;
      }
      const diagnostics = lastLines(stderr, 4);
      const how =
        result && typeof result.reason === 'string'
          ? `${model.format === 'smart-turn' || model.format === 'speaker-segmentation' ? 'onnxruntime' : 'sherpa-onnx'} refused it: ${result.reason}`
          : signal
            ? `the loader was ended by ${signal}${signal === 'SIGKILL' ? ' (timed out or out of memory)' : ''}`
            : `the loader process exited with code ${code} while loading or running it`;
      resolve({ ok: false, reason: diagnostics ? `${how} (${diagnostics})` : how });
    });
  });
}

/**
 * The module loaders this process runs with (tsx in tests and development), and nothing else of
 * execArgv: flags such as --test or --inspect must not pass to the loader child.
 */
function loaderArgs(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '--import' || a === '--loader' || a === '--require' || a === '-r') && i + 1 < argv.length) out.push(a, argv[++i]!);
    else if (/^--(import|loader|require)=/.test(a)) out.push(a);
  }
  return out;
}

function lastLines(text: string, n: number): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n)
    .join(' | ')
    .slice(0, 600);
}
