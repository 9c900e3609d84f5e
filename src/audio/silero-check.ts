// Run as a process of its own by live-vad.ts: `node silero-check.js <model>` loads the Silero model
// and runs one window through it. A model file that is not a valid ONNX model makes ONNX Runtime
// throw a C++ exception that sherpa-onnx's binding does not catch: the process aborts, which no
// JavaScript can prevent. Here that costs only this process; its exit status says whether the
// service's own process can load the model.

import { SileroVad } from './silero-vad.js';

const model = process.argv[2];
if (!model) process.exit(2);
SileroVad.create(model).process(new Float32Array(1024));
process.exit(0);
