// Large answers do not outlive their request (issue 19): after a burst of 8 concurrent
// /tts/generate requests of ~10 minutes of audio each (breaks: mostly silence, cheap to
// synthesize, ~200 MB of WAV in all), the node's RSS is back within 20% of before (plus a little
// slack) within 30 s, and grows during the burst by far less than the answers in flight (they are
// streamed, not held whole). The node is a process of its own, so its RSS is not this test
// runner's. bench/memory-burst.ts has the figures for heavier bursts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { tempDir } from '../helpers/env.js';
import { cli, startNode } from '../helpers/node-process.js';

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POSTs and counts the answer's bytes without keeping them (fetch would hold each file whole). */
function drain(url: string, key: string, body: object): Promise<{ status: number; bytes: number; length: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, length: Number(res.headers['content-length']) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('RSS is back within 20% of before within 30 s of a burst of large answers', { timeout: 180_000 }, async () => {
  const tmp = tempDir();
  // Breaks past the default 5-minute break cap: this test wants ~10 minutes of mostly silence.
  const env = { PARLA_DATA_DIR: tmp.dir, PARLA_WORKERS: '2', PARLA_TTS_MAX_BREAK_SECONDS: '900' };
  const { key } = await cli(['accounts', 'create', '--name', 'mem', '--plan', 'enterprise', '--credits', '1000000'], env);
  const node = await startNode(env);
  try {
    const url = `${node.url}/api/v1/tts/generate`;
    // 29 breaks of 20 s: 9 min 40 s of audio, under the per-request cap of 20 minutes.
    const text = 'One.' + '<break time="20s"/>Two.'.repeat(29);
    // Warmed with one answer of the burst's size: what a first large request leaves behind (grown
    // heaps, compiled code) is the node's baseline, not growth the burst must stay under.
    const warm = await drain(url, key.api_key, { text, voice: 'Aria', model: 'aura-lite', format: 'wav' });
    assert.equal(warm.status, 200);
    await sleep(1000);
    const before = rssMb(node.proc.pid!);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(node.proc.pid!))), 50);
    // A failed assertion below must not leave the sampler holding the test process open.
    sampler.unref();
    let served = 0;
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => drain(url, key.api_key, { text, voice: 'Aria', model: 'aura-lite', format: 'wav' })),
      );
      for (const a of answers) {
        assert.equal(a.status, 200);
        assert.equal(a.bytes, a.length, 'the streamed WAV has the length it announced');
        // aura-lite speaks English with Flite kal16: 16 kHz.
        assert.ok((a.bytes - 44) / 2 / 16000 > 29 * 20, `${a.bytes} bytes`);
        served += a.bytes;
      }
    }
    clearInterval(sampler);
    // Streamed from the speech and shared zeros, not held as files: the node grows by far less than
    // the answers in flight at once (a round's worth, ~144 MB); holding them whole would grow it by
    // that much or more.
    const inFlightMb = served / 2 / 1024 / 1024;
    assert.ok(
      peak - before < inFlightMb / 2,
      `RSS grew ${(peak - before).toFixed(0)} MB during the burst, ${inFlightMb.toFixed(0)} MB of answers at once`,
    );
    const bound = before * 1.2 + 30;
    let after = rssMb(node.proc.pid!);
    const peakish = after;
    for (let s = 0; s < 30 && after > bound; s++) {
      await sleep(1000);
      after = rssMb(node.proc.pid!);
    }
    console.log(
      `RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, at the end of the burst ${peakish.toFixed(0)} MB, then ${after.toFixed(0)} MB (bound ${bound.toFixed(0)} MB)`,
    );
    assert.ok(after <= bound, `RSS ${after.toFixed(0)} MB 30 s after the burst, ${before.toFixed(0)} MB before`);
  } finally {
    await node.kill();
    tmp.cleanup();
  }
});
