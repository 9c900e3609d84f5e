// The speakers of an installed neural voice model and their genders, and the stable rule that maps a
// catalogue (Aura) voice to one of them (docs/engines.md "Aura voices on a neural model"):
//   the speakers of the voice's gender, those of the requested language's accent first when the
//   model says which speaker has which accent, in speaker-id order; the voice's slot among the
//   voices of its gender picks one, modulo their number. A model with no speaker of the voice's
//   gender has no mapping for it: the model's chain falls through to its next engine.
// Where the genders come from, first found wins:
//   1. `speakers.txt` in the model folder, written by the operator: "ID GENDER [NAME]" a line
//      (GENDER female or male; '#' starts a comment);
//   2. Kokoro: the ONNX metadata `speaker_names` (as sherpa-onnx's kokoro-en-v0_19 has it,
//      "af,af_bella,...,bm_lewis"): Kokoro's names encode the accent in their first letter (a:
//      American, b: British) and the gender in the second (f, m);
//   3. the manager's catalog entry of that name (a single-speaker Piper voice's gender);
//   4. none: the model serves no catalogue voice on its own (a request may still name a speaker).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { upstreamModel } from '../../models/upstream.js';
import { readOnnxMetadata } from '../../models/onnx-metadata.js';
import type { SherpaTtsModel } from './models.js';

export type SpeakerGender = 'female' | 'male';

export interface Speaker {
  id: number;
  name: string;
  gender: SpeakerGender;
  /** Catalogue language code of the speaker's accent, when the model says (Kokoro: en-US / en-GB). */
  accent?: string;
}

const KOKORO_ACCENT: Record<string, string> = { a: 'en-US', b: 'en-GB' };

/** The model's speakers with a known gender, in id order (empty when no source states any). */
export function readSpeakers(model: SherpaTtsModel): Speaker[] {
  const stated = path.join(model.dir, 'speakers.txt');
  if (existsSync(stated)) return parseSpeakersFile(readFileSync(stated, 'utf8'));
  if (model.kind === 'kokoro') {
    let names: string | undefined;
    try {
      names = readOnnxMetadata(model.model).speaker_names;
    } catch {
      names = undefined;
    }
    if (names) return kokoroSpeakers(names);
  }
  const gender = upstreamModel(model.name)?.speakerGender;
  return gender ? [{ id: 0, name: model.name, gender }] : [];
}

/** "ID GENDER [NAME]" lines; lines that do not parse are skipped (the operator's file, read at start). */
export function parseSpeakersFile(text: string): Speaker[] {
  const out: Speaker[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.split('#')[0]!.trim();
    if (line === '') continue;
    const [id, gender, name] = line.split(/\s+/);
    const n = Number(id);
    if (!Number.isInteger(n) || n < 0 || n > 100_000 || (gender !== 'female' && gender !== 'male')) continue;
    out.push({ id: n, name: name ?? String(n), gender });
  }
  return out.sort((a, b) => a.id - b.id);
}

/** Kokoro's speaker_names metadata: comma-separated, in id order. */
export function kokoroSpeakers(names: string): Speaker[] {
  const out: Speaker[] = [];
  names.split(',').forEach((raw, id) => {
    const name = raw.trim();
    const gender = name[1] === 'f' ? 'female' : name[1] === 'm' ? 'male' : null;
    if (!gender) return;
    const accent = KOKORO_ACCENT[name[0] ?? ''];
    out.push({ id, name, gender, ...(accent ? { accent } : {}) });
  });
  return out;
}

/**
 * The speaker a catalogue voice (gender, slot among the voices of its gender) speaks with in the
 * language, or undefined when the model has none of that gender.
 */
export function speakerFor(speakers: readonly Speaker[], gender: string, slot: number, language: string): Speaker | undefined {
  const same = speakers.filter((s) => s.gender === gender);
  if (same.length === 0) return undefined;
  const accented = same.filter((s) => s.accent === language);
  const pool = accented.length ? accented : same;
  return pool[((slot % pool.length) + pool.length) % pool.length];
}

/** A catalogue voice's descriptor in its engine voices (key "neural"): "<gender>:<slot>". */
export function neuralVoiceKey(gender: string, slot: number): string {
  return `${gender}:${slot}`;
}

export function parseNeuralVoiceKey(key: string | undefined): { gender: string; slot: number } | null {
  if (!key) return null;
  const i = key.indexOf(':');
  const digits = key.slice(i + 1);
  return i > 0 && /^\d{1,6}$/.test(digits) ? { gender: key.slice(0, i), slot: Number(digits) } : null;
}
