// The operator's turn model on a live socket (PARLA_TURN_MODEL, decision #74): the same audio,
// streamed in real time to a server with and without a turn model installed. A long sentence that
// trails off ("... and the"), a 0.5 s pause, then its last word: the words alone wait over a
// second after a trailing word, so without the model the pause ends no turn; the generated model
// (test/fixtures/smart-turn) rates a window full of speech as done, so with it the turn ends there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { createTestAccount, createTestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { generateSmartTurnModel } from '../helpers/smart-turn-model.js';
import { RealtimeServer } from '../../src/realtime/server.js';
import { flite, padded, soxConcat } from '../helpers/speech.js';
import { decodeWav } from '../../src/audio/wav.js';
import { float32ToInt16 } from '../../src/audio/pcm.js';
import { pullModel } from '../../src/models/pull.js';
import { activeTurnModel } from '../../src/engines/smart-turn/turn-model.js';

const tmp = tempDir('parla-turn-model-rt-');
after(() => tmp.cleanup());
const models = path.join(tmp.dir, 'models');
let audio: Buffer;

before(async () => {
  await pullModel(models, { source: generateSmartTurnModel(path.join(tmp.dir, 'gen')), name: 'turn-rt', log: () => undefined });
  const first = flite(
    'The committee talked about the budget for the coming year in great detail and then it went on to talk about the new building and the',
  );
  const pcm = float32ToInt16(decodeWav(readFileSync(padded(soxConcat([first, flite('garden.')], 0.5), 0.3, 1.8))).channels[0]!);
  audio = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
});

/** The TurnInfo EndOfTurn messages of the audio streamed in real time (100 ms chunks). */
async function endsOfTurn(env: Record<string, string>): Promise<any[]> {
  const t = await createTestApp({ PARLA_MODELS_DIR: models, ...env });
  const rt = new RealtimeServer(t.services, { recognizerWaitMs: 5000 });
  try {
    const port = await rt.listen(0, '127.0.0.1');
    const { apiKey } = await createTestAccount(t.services);
    await t.services.registry.whenReady();
    // A server that has been up a while: its turn model loaded (seconds on a busy machine), as it
    // is long before a first pause in use.
    await activeTurnModel()?.completion(new Float32Array(16000));
    const ws = new WebSocket(`wss://127.0.0.1:${port}/api/v1/stt/realtime/stream?api_key=${apiKey}&turns=true&interim_results=false`, {
      ca: rt.cert,
    });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    const closed = new Promise<void>((r) => ws.on('close', () => r()));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const startedAt = Date.now();
    for (let i = 0; i < audio.length; i += 3200) {
      ws.send(audio.subarray(i, i + 3200));
      const due = startedAt + ((i + 3200) / 32000) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    }
    ws.send('{"type":"CloseStream"}');
    await closed;
    return messages.filter((m) => m.type === 'TurnInfo' && m.event === 'EndOfTurn');
  } finally {
    await rt.close();
    await t.close();
  }
}

test('without a turn model the trailing pause ends no turn; with it the turn ends there', { timeout: 120_000 }, async () => {
  const without = await endsOfTurn({});
  const withModel = await endsOfTurn({ PARLA_TURN_MODEL: 'turn-rt' });
  const describe = (ends: any[]) => JSON.stringify(ends.map((e) => [e.trigger, e.end, e.transcript]));
  assert.equal(without.filter((e) => e.trigger === 'pause').length, 1, describe(without));
  assert.equal(withModel.filter((e) => e.trigger === 'pause').length, 2, describe(withModel));
  // The first turn ended in the 0.5 s pause, before the last word.
  assert.ok(withModel[0].end < without[0].end, `${describe(withModel)} vs ${describe(without)}`);
});
