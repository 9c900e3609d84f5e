// The loading check of the speaker models (run in the check's child process, src/models/
// verify-child.ts). An embedding model is loaded by sherpa-onnx exactly as diarization loads it and
// describes the built-in sample: one vector of its stated length, every value finite. A
// segmentation model cannot be loaded by sherpa-onnx on its own (its only entry point,
// OfflineSpeakerDiarization, also needs an embedding model), so onnxruntime runs the graph the way
// sherpa-onnx does (offline-speaker-diarization-pyannote-impl.h: one [1, 1, window_size] window in,
// [1, frames, num_classes] out); its metadata was checked key by key by the probe.

import { readFileSync } from 'node:fs';
import { readOnnxMetadata } from './onnx-metadata.js';
import { loadSherpa, speakerEmbeddingConfig } from './sherpa-config.js';

/** Vector length and the seconds of `samples` (16 kHz) the extractor described. */
export function checkEmbeddingModel(file: string, samples: Float32Array): { output: string } {
  const extractor = new (loadSherpa().SpeakerEmbeddingExtractor)(speakerEmbeddingConfig(file));
  const stream = extractor.createStream();
  stream.acceptWaveform({ samples, sampleRate: 16000 });
  stream.inputFinished();
  if (!extractor.isReady(stream)) throw new Error('the extractor took no frames of the sample');
  const v = extractor.compute(stream);
  if (v.length !== extractor.dim) throw new Error(`the embedding has ${v.length} values, its metadata says ${extractor.dim}`);
  if (!v.every(Number.isFinite)) throw new Error('the embedding holds values that are not finite');
  return { output: `a ${v.length}-value embedding` };
}

export async function checkSegmentationModel(file: string, samples: Float32Array): Promise<{ output: string }> {
  const meta = readOnnxMetadata(file);
  const window = Number(meta.window_size);
  const classes = Number(meta.num_classes);
  const shift = Number(meta.receptive_field_shift);
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  let session: import('onnxruntime-web').InferenceSession;
  try {
    session = await ort.InferenceSession.create(readFileSync(file));
  } catch (err) {
    throw new Error(`onnxruntime cannot load it: ${(err as Error).message.slice(0, 300)}`);
  }
  try {
    if (session.inputNames.length !== 1) throw new Error(`expected one input (the samples), found ${session.inputNames.length}`);
    const x = new Float32Array(window);
    x.set(samples.subarray(0, window));
    const out = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', x, [1, 1, window]) });
    const y = out[session.outputNames[0]!]!;
    const [n, frames, width] = y.dims;
    if (y.dims.length !== 3 || n !== 1 || width !== classes)
      throw new Error(`the output has shape [${y.dims.join(', ')}], not [1, frames, ${classes}] (num_classes)`);
    // sherpa-onnx places each chunk's frames on a grid of window_size / receptive_field_shift + 1.
    if (!frames || frames > Math.floor(window / shift) + 1)
      throw new Error(`${frames} frames per window: more than window_size / receptive_field_shift + 1`);
    if (!(y.data as Float32Array).every(Number.isFinite)) throw new Error('the output holds values that are not finite');
    return { output: `${frames} frames of ${classes} classes per ${window / Number(meta.sample_rate)} s window` };
  } finally {
    await session.release();
  }
}
