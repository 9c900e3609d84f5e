// Loads a Smart Turn v3 model (pipecat-ai/smart-turn's ONNX export) and checks its interface: one
// float32 input `input_features` of [batch, 80, 800] (Whisper log-mel features of the last 8 s,
// src/audio/whisper-mel.ts) and one float32 output of [batch, 1], the probability that the turn is
// complete (a sigmoid, already applied in the graph). Run by onnxruntime-web's WebAssembly build:
// sherpa-onnx has no API for an arbitrary graph, and the WebAssembly runtime needs no native
// download; it runs on the thread that loads it (the turn-model thread, or the check's child).

import { readFileSync } from 'node:fs';
import { MEL_BINS, MEL_FRAMES, turnWindow, whisperLogMel } from '../audio/whisper-mel.js';

export class TurnModelError extends Error {}

export interface SmartTurn {
  /** The completion probability (0-1) of the turn whose audio (16 kHz, -1..1) ends `audio`. */
  predict(audio: Float32Array): Promise<number>;
  /** The same, from features already computed ([80 * 800], row by row). */
  predictFeatures(features: Float32Array): Promise<number>;
}

type Ort = typeof import('onnxruntime-web');
type Dim = number | string;

const isBatch = (d: Dim | undefined) => typeof d === 'string' || d === 1 || d === -1;

/** Why a model's inputs and outputs are not Smart Turn's, or null when they are. */
export function interfaceProblem(
  inputs: { name: string; type?: string; shape?: readonly Dim[] }[],
  outputs: { name: string; type?: string; shape?: readonly Dim[] }[],
): string | null {
  if (inputs.length !== 1) return `expected one input (input_features), found ${inputs.length}: ${inputs.map((i) => i.name).join(', ')}`;
  const input = inputs[0]!;
  if (input.name !== 'input_features') return `the input is named ${input.name}, not input_features`;
  if (input.type !== undefined && input.type !== 'float32') return `input_features is ${input.type}, not float32`;
  const s = input.shape;
  if (s && s.length > 0 && !(s.length === 3 && isBatch(s[0]) && s[1] === MEL_BINS && s[2] === MEL_FRAMES))
    return `input_features has shape [${s.join(', ')}], not [batch, ${MEL_BINS}, ${MEL_FRAMES}]`;
  if (outputs.length !== 1) return `expected one output (the completion probability), found ${outputs.length}`;
  const o = outputs[0]!;
  if (o.type !== undefined && o.type !== 'float32') return `the output ${o.name} is ${o.type}, not float32`;
  if (o.shape && o.shape.length > 0 && !(o.shape.length === 2 && isBatch(o.shape[0]) && o.shape[1] === 1))
    return `the output ${o.name} has shape [${o.shape.join(', ')}], not [batch, 1]`;
  return null;
}

export async function loadSmartTurn(file: string): Promise<SmartTurn> {
  const ort: Ort = await import('onnxruntime-web');
  // One WebAssembly thread: the caller's thread is already off the event loop, and the machine's
  // cores are shared with the recognizers.
  ort.env.wasm.numThreads = 1;
  let session: import('onnxruntime-web').InferenceSession;
  try {
    session = await ort.InferenceSession.create(readFileSync(file));
  } catch (err) {
    throw new TurnModelError(`onnxruntime cannot load it: ${(err as Error).message.slice(0, 300)}`);
  }
  const meta = (m: readonly import('onnxruntime-web').InferenceSession.ValueMetadata[]) =>
    m.map((v) => (v.isTensor ? { name: v.name, type: v.type, shape: v.shape } : { name: v.name, type: 'not a tensor' }));
  const problem = interfaceProblem(meta(session.inputMetadata), meta(session.outputMetadata));
  if (problem) {
    await session.release();
    throw new TurnModelError(`not a Smart Turn model: ${problem}`);
  }
  const outputName = session.outputNames[0]!;
  const predictFeatures = async (features: Float32Array): Promise<number> => {
    const out = await session.run({ input_features: new ort.Tensor('float32', features, [1, MEL_BINS, MEL_FRAMES]) });
    const p = Number(out[outputName]!.data[0]);
    if (!Number.isFinite(p) || p < 0 || p > 1) throw new TurnModelError(`the model answered ${p}, not a probability`);
    return p;
  };
  return { predictFeatures, predict: (audio) => predictFeatures(whisperLogMel(turnWindow(audio))) };
}
