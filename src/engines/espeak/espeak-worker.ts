// eSpeak NG inside a worker thread: one emscripten instance per worker, created on first use
// (~0.4 s) and reused. Its input is always SSML, so plain text is escaped.

import EspeakInitializer from '@echogarden/espeak-ng-emscripten';
import { pitchShift } from '../../audio/dsp/time-pitch.js';

interface EspeakInstance {
  samplerate: number;
  rate: number;
  pitch: number;
  set_voice(name: string): number;
  synthesize(ssml: string, cb: (samples: Int16Array | undefined, events: unknown[]) => boolean): void;
  list_voices(): Array<{ name: string; identifier: string; languages: Array<{ name: string; priority: number }> }>;
}

let instance: Promise<EspeakInstance> | null = null;

function engine(): Promise<EspeakInstance> {
  instance ??= (async () => {
    const m = (await (EspeakInitializer as unknown as () => Promise<{ eSpeakNGWorker: new () => EspeakInstance }>)()) as { eSpeakNGWorker: new () => EspeakInstance };
    return new m.eSpeakNGWorker();
  })();
  return instance;
}

export function escapeSsml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface EspeakTask {
  text: string;
  /** eSpeak voice with optional variant, e.g. "en-us+m3", "de+f2", "en-us+whisper". */
  voice: string;
  /** Words per minute (eSpeak's default is 175). */
  wpm: number;
  /** eSpeak's own pitch base, 0-100 (50 is the voice's default). */
  basePitch: number;
  /** Semitones applied to the audio afterwards (exact, duration unchanged). */
  semitones: number;
  emphasis: boolean;
}

export interface EspeakOutput {
  samples: Int16Array;
  sampleRate: number;
}

export async function synthesizeEspeak(task: EspeakTask): Promise<EspeakOutput> {
  const tts = await engine();
  if (tts.set_voice(task.voice) !== 0) {
    // An unknown variant falls back to the bare language voice rather than failing the request.
    const base = task.voice.split('+')[0]!;
    if (tts.set_voice(base) !== 0) throw new Error(`eSpeak has no voice ${task.voice}`);
  }
  tts.rate = Math.max(80, Math.min(450, Math.round(task.wpm)));
  tts.pitch = Math.max(0, Math.min(99, Math.round(task.basePitch)));
  const body = escapeSsml(task.text);
  const ssml = `<speak>${task.emphasis ? `<emphasis level="strong">${body}</emphasis>` : body}</speak>`;
  const chunks: Int16Array[] = [];
  tts.synthesize(ssml, (samples) => {
    if (samples?.length) chunks.push(samples.slice());
    return false;
  });
  const total = chunks.reduce((n, c) => n + c.length, 0);
  let samples: Int16Array = new Int16Array(total);
  let o = 0;
  for (const c of chunks) {
    samples.set(c, o);
    o += c.length;
  }
  if (task.semitones !== 0) samples = pitchShift(samples, tts.samplerate, task.semitones);
  return { samples, sampleRate: tts.samplerate };
}

export async function listEspeakVoices(): Promise<Array<{ identifier: string; languages: string[] }>> {
  const tts = await engine();
  return tts.list_voices().map((v) => ({ identifier: v.identifier, languages: v.languages.map((l) => l.name) }));
}
