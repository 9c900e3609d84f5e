// Graceful shutdown: SIGTERM lets in-flight requests finish, then the process exits cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { tempDir } from '../helpers/env.js';
import { cli, startNode } from '../helpers/node-process.js';

test('SIGTERM: the running stream completes, then the process exits 0', async () => {
  const tmp = tempDir();
  const env = { PARLA_DATA_DIR: tmp.dir };
  const { key } = await cli(['accounts', 'create', '--name', 'sd', '--plan', 'pro'], env);
  const node = await startNode(env);
  const res = await fetch(`${node.url}/api/v1/tts/stream`, {
    method: 'POST',
    headers: { 'x-api-key': key.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({
      text: 'This text takes a little while to stream. '.repeat(8),
      voice: 'Aria',
      model: 'aura-lite',
      sample_rate: 16000,
    }),
  });
  assert.equal(res.status, 200);
  const exited = once(node.proc, 'exit');
  node.proc.kill('SIGTERM');
  const audio = await res.arrayBuffer();
  assert.ok(audio.byteLength / 32000 > 8, `the whole stream arrived (${audio.byteLength / 32000} s)`);
  const [code] = await exited;
  assert.equal(code, 0);
  tmp.cleanup();
});
