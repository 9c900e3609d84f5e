// Which voice-activity detector serves: PARLA_VAD=silero (the default) or webrtc. Silero serves
// when its model file (PARLA_SILERO_MODEL, else the @ricky0123/vad-web package's) is installed and
// loads; otherwise the WebRTC VAD does, and the log says so once (docs/realtime.md, "Voice activity").
// The trial load runs in a process of its own (silero-check.ts): a corrupt model aborts the
// process that loads it, and it must not be the service's (issue 30, decision #80).

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sileroModelPath } from './silero-vad.js';
import { ThreadSileroVad } from './silero-thread.js';
import { Vad } from './vad.js';
import { sharedSpawner } from '../process/spawner.js';

export type VadKind = 'silero' | 'webrtc';

/** A frame-level detector: 20 ms frames of 16 kHz audio, true = speech. */
export interface FrameVad {
  process(pcm: Int16Array): Promise<boolean[]> | boolean[];
  free(): void;
}

/** Both detectors report 20 ms frames. */
export const VAD_FRAME_SECONDS = Vad.frameSeconds();

type Choice = { kind: VadKind; model: string | null };
let chosen: Promise<Choice> | null = null;

/** The detector that serves (decided once per process; a trial load in another process checks the model). */
export function vadKind(env: NodeJS.ProcessEnv = process.env): Promise<Choice> {
  return (chosen ??= choose(env));
}

async function choose(env: NodeJS.ProcessEnv): Promise<Choice> {
  const want = (env.PARLA_VAD ?? 'silero').toLowerCase();
  if (want === 'webrtc') {
    console.info('voice activity: WebRTC VAD (PARLA_VAD=webrtc)');
    return { kind: 'webrtc', model: null };
  }
  const model = sileroModelPath(env);
  let why = env.PARLA_SILERO_MODEL?.trim()
    ? `its model file ${env.PARLA_SILERO_MODEL.trim()} (PARLA_SILERO_MODEL) does not exist`
    : 'its model file (@ricky0123/vad-web) is not installed';
  if (model) {
    const failure = await trialLoad(model);
    if (failure === null) {
      console.info(`voice activity: Silero VAD (${model})`);
      return { kind: 'silero', model };
    }
    why = `its model ${model} did not load: ${failure}`;
  }
  console.warn(`voice activity: WebRTC VAD serves, Silero VAD cannot: ${why}`);
  return { kind: 'webrtc', model: null };
}

// From TypeScript sources (tests, tsx) the check needs tsx's hooks; compiled, plain JavaScript.
const fromSources = import.meta.url.endsWith('.ts');
const checkFile = new URL(fromSources ? './silero-check.ts' : './silero-check.js', import.meta.url);

/**
 * The shipped model's sha256 (docs/engines.md): a file with this hash is the one known to load, and
 * needs no trial (a process start costs seconds on a loaded machine, and the first live stream
 * waits for the choice).
 */
const SHIPPED_SHA256 = '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f';

/** null when the model is the shipped one, or loads and runs in a process of its own; else why not. */
async function trialLoad(model: string): Promise<string | null> {
  try {
    if (
      createHash('sha256')
        .update(await readFile(model))
        .digest('hex') === SHIPPED_SHA256
    )
      return null;
    const args = [...(fromSources ? ['--import', import.meta.resolve('tsx')] : []), checkFile.pathname, model];
    const st = await sharedSpawner().run(process.execPath, args, AbortSignal.timeout(60_000));
    if (st.code === 0) return null;
    const said = st.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' ').slice(0, 300);
    return `the loader ${st.code === null ? `was ended by ${st.signal}` : `exited with ${st.code}`}${said ? ` (${said})` : ''}`;
  } catch (err) {
    return (err as Error).message;
  }
}

/** A detector for one live stream, on the Silero thread or (WebRTC) in-process. */
export async function createFrameVad(): Promise<FrameVad> {
  const k = await vadKind();
  if (k.kind === 'silero' && k.model) return new ThreadSileroVad(k.model);
  return Vad.create(2);
}
