// The decoder process: decodes uploads for the service, one at a time, over the socket that is
// its stdin and stdout (frames.ts). It exists so that a hostile file can cost only itself: a
// mutated M4A made audio-decode grow a table until V8 gave up ("invalid table size", a fatal
// out-of-memory that no worker thread's resourceLimits catch) and took the whole service with it
// (issue 30, decision #42). Here the same failure ends this process; the service answers that one
// request 422 and starts another decoder. Bounds: V8's heap (--max-old-space-size, set by the
// service), a watchdog on the whole process's resident memory (typed arrays and WASM memory are
// outside the heap) that kills it past PARLA_DECODE_MEMORY_MB, and the service's timeout.
//
// A request: { id, op: 'decode' | 'probe', maxSeconds }, the upload as body. The answer: { id, ok:
// true, samples, rss } with the PCM as body; { id, ok: false, kind: 'too_long', seconds } when the
// header declares (or the decoder finds) more than maxSeconds; { id, ok: false, kind: 'invalid',
// reason } otherwise; for 'probe' (of the body, or of the file at `path`), { id, ok: true,
// declared } (seconds or null).

import { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { AudioDecodeError, AudioTooLongError, decodeToMono16k } from '../decode.js';
import { declaredSeconds, declaredSecondsOfFile } from '../declared-duration.js';
import { encodeFrame, FrameReader, type FrameHeader } from './frames.js';

// Arguments from the service (host.ts): the resident-memory bound in MB.
const memoryMb = Number(process.argv[2] ?? 1024);
const maxBodyBytes = 2 ** 31 - 1;

// The watchdog runs on its own thread: a decoder stuck in one long synchronous call never lets
// this thread's timers run. SIGKILL, not exit: nothing here is worth finishing.
new Worker(
  `const { parentPort, workerData } = require('node:worker_threads');
   setInterval(() => { if (process.memoryUsage.rss() > workerData * 1048576) process.kill(process.pid, 'SIGKILL'); }, 50);`,
  { eval: true, workerData: memoryMb },
).unref();

const io = new Socket({ fd: 0, readable: true, writable: true });
const reader = new FrameReader(maxBodyBytes);
let queue: Promise<void> = Promise.resolve();

function answer(header: Omit<FrameHeader, 'bodyBytes'>, body?: Uint8Array): void {
  for (const part of encodeFrame({ ...header, bodyBytes: body?.byteLength ?? 0 }, body)) io.write(part);
}

async function handle(header: FrameHeader, body: Buffer): Promise<void> {
  const id = header.id;
  const maxSeconds = typeof header.maxSeconds === 'number' ? header.maxSeconds : Infinity;
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  try {
    // A stored file (a job's upload) is probed where it lies, not sent here whole.
    if (header.op === 'probe')
      return answer({
        id,
        ok: true,
        declared: typeof header.path === 'string' ? await declaredSecondsOfFile(header.path) : await declaredSeconds(bytes),
      });
    const declared = await declaredSeconds(bytes);
    // The declared length is refused before a sample is decoded.
    if (declared !== null && declared > maxSeconds) return answer({ id, ok: false, kind: 'too_long', seconds: declared, declared: true });
    const pcm = await decodeToMono16k(bytes, { maxSeconds });
    answer(
      { id, ok: true, samples: pcm.length, rss: process.memoryUsage.rss() },
      new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength),
    );
  } catch (err) {
    if (err instanceof AudioTooLongError) return answer({ id, ok: false, kind: 'too_long', seconds: err.seconds, declared: false });
    const reason = err instanceof AudioDecodeError ? err.message : `the decoder failed (${(err as Error).name})`;
    answer({ id, ok: false, kind: 'invalid', reason, rss: process.memoryUsage.rss() });
  }
}

io.on('data', (chunk: Buffer) => {
  let frames;
  try {
    frames = reader.push(chunk);
  } catch {
    process.exit(2);
  }
  for (const f of frames) queue = queue.then(() => handle(f.header, f.body));
});
// The service closed the socket (idle, recycled, shutting down) or is gone.
io.on('end', () => process.exit(0));
io.on('error', () => process.exit(0));
