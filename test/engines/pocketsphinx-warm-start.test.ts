// The warm cepstral mean computed once (warm-start.ts) and the pool that waits only for each
// profile's first decoder (decoder-pool.ts): the shared mean is the one a full decoder of each
// profile reaches by decoding the warm-up utterance itself, a decoder given it hears what a
// self-warmed one hears, setCmn() refuses bad input, and the pool grows to its size in the
// background after the first decoder served, also when freed meanwhile.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadNative, type NativeModule } from '../../src/engines/pocketsphinx/binding.js';
import { PsDecoder } from '../../src/engines/pocketsphinx/decoder.js';
import { DecoderPool } from '../../src/engines/pocketsphinx/decoder-pool.js';
import { decoderArgs } from '../../src/engines/pocketsphinx/profiles.js';
import { WarmStart } from '../../src/engines/pocketsphinx/warm-start.js';
import { warmupUtterance } from '../../src/engines/pocketsphinx/warmup.js';

const GOFORWARD = '/usr/share/pocketsphinx/test/data/goforward.raw';
const loaded = loadNative();
if ('error' in loaded) throw new Error(loaded.error);
const mod: NativeModule = loaded.native;
const utterance = warmupUtterance();
assert.ok(utterance, 'the warm-up utterance needs Flite');
const warm = new WarmStart(mod, utterance);
const made: PsDecoder[] = [];
after(() => Promise.all(made.map((d) => d.run((n) => n.free?.()))));

function readRaw(file: string): Int16Array {
  const b = readFileSync(file);
  return new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
const words = (us: Array<{ words: Array<{ word: string; start: number; end: number }> }>) =>
  us.flatMap((u) => u.words.map((w) => `${w.word}@${w.start.toFixed(2)}-${w.end.toFixed(2)}`)).join(' ');

async function decoder(profile: string): Promise<PsDecoder> {
  const d = new PsDecoder(mod, decoderArgs(profile), profile);
  made.push(d);
  await d.init();
  return d;
}

test('the shared mean is the mean each profile reaches on the utterance, and gives the same words', async () => {
  const mean = await warm.computed();
  assert.ok(mean instanceof Float32Array && mean.length === 13, 'the addon has getCmn()/setCmn() (rebuild it: npm run build)');
  const pcm = readRaw(GOFORWARD);
  for (const profile of ['fast', 'accurate']) {
    const self = await decoder(profile);
    await self.decodeContinuous(utterance!);
    assert.equal(await self.run((n) => n.saveCmn()), true);
    assert.deepEqual(await self.run((n) => n.getCmn!()), mean, `${profile}: same mean as the keyword-spotting decoder`);
    const given = await decoder(profile);
    await warm.warm(given);
    assert.deepEqual(await given.run((n) => n.getCmn!()), mean);
    const a = await self.decodeContinuous(pcm);
    const b = await given.decodeContinuous(pcm);
    assert.match(words(a), /go@.*forward@.*ten@.*meters@/);
    assert.equal(words(b), words(a), `${profile}: same words and times`);
  }
});

test('setCmn() refuses what is not a mean of this model', async () => {
  const d = await decoder('fast');
  const n = await d.run((x) => x);
  assert.throws(() => n.setCmn!('x' as never), TypeError);
  assert.throws(() => n.setCmn!(new Float64Array(13) as never), TypeError);
  assert.equal(n.setCmn!(new Float32Array(5)), false, 'wrong length: refused');
  assert.equal(n.getCmn!(), null, 'nothing saved');
  assert.throws(() => n.setCmn!(new Float32Array(13).fill(Number.NaN)), RangeError);
  assert.equal(n.setCmn!(new Float32Array(13).fill(1)), true);
  assert.deepEqual(n.getCmn!(), new Float32Array(13).fill(1));
});

test('the pool waits for one decoder per profile and grows to its size after the first one served', async () => {
  const pool = new DecoderPool(mod, ['fast'], 2, warm, true);
  await pool.whenReady();
  assert.equal(pool.size(), 1, 'only the first decoder is created up front');
  const a = await pool.acquire('fast');
  const second = pool.acquire('fast');
  pool.release(a);
  assert.equal(await second, a, 'the one waiting in line got the first decoder');
  pool.release(a);
  await pool.whenComplete();
  assert.equal(pool.size(), 2);
  const [x, y] = await Promise.all([pool.acquire('fast'), pool.acquire('fast')]);
  assert.notEqual(x, y, 'two decoders at once');
  const pcm = readRaw(GOFORWARD);
  const [rx, ry] = await Promise.all([x.decodeContinuous(pcm), y.decodeContinuous(pcm)]);
  assert.equal(words(ry), words(rx), 'the background decoder hears what the first one hears');
  pool.release(x);
  pool.release(y);
  await pool.free();
});

test('freeing while the pool grows frees every decoder, including the one being created', async () => {
  const pool = new DecoderPool(mod, ['fast'], 3, warm, true);
  const d = await pool.acquire('fast');
  pool.release(d);
  await pool.free();
  assert.ok(pool.size() <= 2, 'growth stopped after the free');
  await assert.rejects(
    d.run((n) => n.startStream()),
    /not initialised/,
  );
});
