// The decoder processes (decision #42): a file that kills its decoder fails only its own request
// (AudioDecodeError) and the next one gets a fresh decoder; the cap stops a decode; a full queue is
// PoolOverloadedError; a decode past its time bound is killed; waiting accounts take turns, and one
// account's waiting uploads are capped (decision #58).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ProcessSpawner } from '../../src/process/spawner.js';
import { DecoderProcesses, DecodeTooLongError } from '../../src/audio/decoder/host.js';
import { AudioDecodeError } from '../../src/audio/decode.js';
import { PoolOverloadedError } from '../../src/domain/overload.js';
import { encodeWav } from '../../src/audio/wav.js';
import { HEAP_CRASH_M4A } from '../hostile/decode-corpus.js';
import { asTenant } from '../../src/domain/tenant.js';

const spawner = new ProcessSpawner();
const decoders = new DecoderProcesses(spawner, { processes: 1, maxQueue: 1, memoryMb: 1024, heapMb: 96, timeoutMs: 120_000 });
after(async () => {
  await decoders.close();
  spawner.close();
});

const speech = () => {
  const pcm = new Int16Array(16000 * 3);
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(4000 * Math.sin(i / 7));
  return encodeWav(pcm, 16000);
};

test('a WAV decodes; the one after a file that killed its decoder decodes too', async () => {
  const pcm = await decoders.decode(speech(), 60);
  assert.equal(pcm.length, 16000 * 3);
  await assert.rejects(decoders.decode(readFileSync(HEAP_CRASH_M4A), 60), (err: unknown) => err instanceof AudioDecodeError);
  const again = await decoders.decode(speech(), 60);
  assert.equal(again.length, 16000 * 3);
});

test('the cap: a header declaring more is refused before decoding; garbage is AudioDecodeError', async () => {
  await assert.rejects(
    decoders.decode(speech(), 2),
    (err: unknown) => err instanceof DecodeTooLongError && err.declared && err.seconds === 3,
  );
  await assert.rejects(decoders.decode(Buffer.alloc(5000, 0x42), 60), (err: unknown) => err instanceof AudioDecodeError);
});

test('one decoder, one waiting: a third request is refused at once (503)', async () => {
  const busy = [decoders.decode(speech(), 60), decoders.decode(speech(), 60)];
  await assert.rejects(decoders.decode(speech(), 60), (err: unknown) => err instanceof PoolOverloadedError);
  await Promise.all(busy);
});

test('a decode past its time bound is killed and answered', async () => {
  const quick = new DecoderProcesses(spawner, { processes: 1, maxQueue: 1, memoryMb: 1024, heapMb: 96, timeoutMs: 1 });
  await assert.rejects(
    quick.decode(speech(), 60),
    (err: unknown) => err instanceof AudioDecodeError && /longer than/.test((err as Error).message),
  );
  await quick.close();
});

test('waiting accounts take turns for the decoder; one account past its own cap is refused at once (503)', async () => {
  const fair = new DecoderProcesses(spawner, {
    processes: 1,
    maxQueue: 10,
    accountQueue: 3,
    memoryMb: 1024,
    heapMb: 96,
    timeoutMs: 120_000,
  });
  try {
    const order: string[] = [];
    const run = (account: string, name: string) => asTenant(account, () => fair.decode(speech(), 60)).then(() => order.push(name));
    const first = run('a', 'a1');
    // a1 is being decoded (its decoder is starting); three more of a's wait, the fourth is over a's cap.
    await new Promise((r) => setImmediate(r));
    const waiting = [run('a', 'a2'), run('a', 'a3'), run('a', 'a4')];
    await assert.rejects(
      asTenant('a', () => fair.decode(speech(), 60)),
      (err: unknown) => err instanceof PoolOverloadedError && (err as PoolOverloadedError).details.limit === 3,
    );
    // Another account still gets in, and is served after one more of a's, not after all three.
    const b = run('b', 'b1');
    await Promise.all([first, ...waiting, b]);
    assert.deepEqual(order, ['a1', 'a2', 'b1', 'a3', 'a4']);
  } finally {
    await fair.close();
  }
});
