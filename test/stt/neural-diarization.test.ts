// Neural diarization (decision #91): speaker models of sherpa-onnx's two formats (generated, random
// weights) installed through the model manager as an operator installs them, then recordings
// diarized through sherpa-onnx on the native, Deepgram and OpenAI doors. Random weights find
// arbitrary speakers, so the answers are checked for their structure and for the path that served
// them (the parla_stt_diarized_total counter, the log), not for how many speakers they found. A
// corrupt, missing or misnamed model falls back to the built-in clustering with the reason logged.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { createTestAccount, createTestApp, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/env.js';
import { multipart } from '../helpers/multipart.js';
import { flite, soxConcat } from '../helpers/speech.js';
import { generateSpeakerModels, type SpeakerModelFiles } from '../helpers/speaker-models.js';
import { pullModel } from '../../src/models/pull.js';
import { verifiedModels } from '../../src/models/store.js';
import { createSpeakerDiarizer, MAX_WAITING } from '../../src/engines/sherpa/speaker-models.js';
import { ModelLifecycle } from '../../src/engines/model-lifecycle.js';
import { decodePcm16MonoWav } from '../../src/audio/wav.js';

const tmp = tempDir('parla-speakers-');
let files: SpeakerModelFiles;
let modelsDir: string;
let dialogue: Buffer;

before(async () => {
  files = generateSpeakerModels(path.join(tmp.dir, 'generated'));
  modelsDir = path.join(tmp.dir, 'models');
  for (const [source, name] of [
    [files.segmentation, 'pyannote-test'],
    [files.embedding3d, 'eres2net-test'],
    [files.wespeaker, 'wespeaker-test'],
  ] as const)
    await pullModel(modelsDir, { source, name, log: () => undefined });
  dialogue = readFileSync(
    soxConcat(
      [
        flite('Good morning, how was your weekend?', 'slt'),
        flite('It was great, we went hiking in the mountains.', 'rms'),
        flite('That sounds wonderful. Did you take pictures?', 'slt'),
        flite('Yes, plenty of them, I will show you later.', 'rms'),
      ],
      0.8,
    ),
  );
});
after(() => tmp.cleanup());

/** An app over `dir` with `env`, its log lines kept. */
async function appWith(dir: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) });
  const t = await createTestApp({ PARLA_MODELS_DIR: dir, ...env }, { servicesLog: log });
  const { apiKey } = await createTestAccount(t.services);
  return { t, key: apiKey, lines };
}

async function diarizedCount(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await t.services.metrics.sttDiarized.get()).values) out[`${v.labels.by}/${v.labels.method}`] = v.value;
  return out;
}

/** Speakers are 0, 1, ... by first appearance, on every word. */
function assertLabels(speakers: number[], what: string): void {
  assert.ok(speakers.length > 0, what);
  assert.ok(
    speakers.every((s) => Number.isInteger(s) && s >= 0),
    `${what}: ${speakers}`,
  );
  let next = 0;
  for (const s of speakers) {
    assert.ok(s <= next, `${what}: speaker ${s} appears before ${next} (${speakers})`);
    if (s === next) next++;
  }
}

/** The dialogue through OpenAI's transcriptions endpoint as diarized_json, with `fields` added. */
async function openaiDiarized(t: TestApp, key: string, fields: Record<string, string> = {}) {
  const { body, contentType } = await multipart(dialogue, { model: 'gpt-4o-transcribe', response_format: 'diarized_json', ...fields });
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    payload: body,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function native(t: TestApp, key: string, fields: Record<string, string> = {}) {
  const { body, contentType } = await multipart(dialogue, { model: 'lucid-multi', diarize: 'true', ...fields });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/stt/lucid/transcribe',
    headers: { 'x-api-key': key, 'content-type': contentType },
    payload: body,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

describe('speaker models in the model manager', () => {
  test('both formats install from one .onnx file each, as kind "speaker", after a loading check that ran them', () => {
    const byName = new Map(verifiedModels(modelsDir).map((m) => [m.name, m]));
    assert.equal(byName.get('pyannote-test')?.format, 'speaker-segmentation');
    assert.equal(byName.get('eres2net-test')?.format, 'speaker-embedding');
    assert.equal(byName.get('wespeaker-test')?.format, 'speaker-embedding');
    for (const m of byName.values()) {
      assert.equal(m.kind, 'speaker');
      assert.equal(m.dir, path.join(modelsDir, 'speaker', m.name));
      assert.ok(m.check && m.check.runMs >= 0, JSON.stringify(m.check));
    }
    // The embedding check is sherpa-onnx's own extractor (its version recorded); segmentation, onnxruntime's run.
    assert.equal(byName.get('eres2net-test')!.check!.sherpaVersion, '1.13.8');
    assert.equal(byName.get('pyannote-test')!.check!.sherpaVersion, null);
  });

  test('a model without a metadata key sherpa-onnx requires is refused by name, before native code loads it', async () => {
    const dir = path.join(tmp.dir, 'refused');
    await assert.rejects(pullModel(dir, { source: files.embeddingNoMeta, name: 'bad-emb', log: () => undefined }), /output_dim/);
    await assert.rejects(
      pullModel(dir, { source: files.segmentationNoMeta, name: 'bad-seg', log: () => undefined }),
      /receptive_field_shift/,
    );
    assert.deepEqual(verifiedModels(dir), []);
  });
});

describe('diarization through sherpa-onnx on every door', () => {
  test('embeddings only: native words and segments, Deepgram utterances, OpenAI diarized_json', async () => {
    const { t, key, lines } = await appWith(modelsDir, {
      PARLA_SPEAKER_EMBEDDING_MODEL: 'eres2net-test',
      PARLA_SPEAKER_SEGMENTATION_MODEL: 'none',
    });
    try {
      assert.ok(
        lines.some((l) => l.includes('sherpa-onnx speaker models (speakers:eres2net-test)')),
        lines.join(''),
      );
      const body = await native(t, key, { response_format: 'verbose_json' });
      assertLabels(
        body.words.map((w: { speaker: number }) => w.speaker),
        'native words',
      );
      for (const s of body.segments) assert.ok(s.words === undefined || s.words.every((w: { speaker: number }) => w.speaker === s.speaker));

      const dg = await t.app.inject({
        method: 'POST',
        url: '/v1/listen?diarize=true&utterances=true&model=nova-3',
        headers: { authorization: `Token ${key}`, 'content-type': 'audio/wav' },
        payload: dialogue,
      });
      assert.equal(dg.statusCode, 200, dg.body);
      const words = dg.json().results.channels[0].alternatives[0].words as Array<{ speaker: number }>;
      assertLabels(
        words.map((w) => w.speaker),
        'Deepgram words',
      );
      for (const u of dg.json().results.utterances) assert.ok(u.words.every((w: { speaker: number }) => w.speaker === u.speaker));

      const segs = (await openaiDiarized(t, key)).segments as Array<{ speaker: string }>;
      assert.equal(segs[0]!.speaker, 'A');
      assertLabels(
        segs.map((s) => s.speaker.charCodeAt(0) - 65),
        'OpenAI segments',
      );

      assert.deepEqual(await diarizedCount(t), { 'sherpa-onnx/embeddings': 3 });
    } finally {
      await t.close();
    }
  });

  test('segmentation and embeddings (auto: the installed ones by name), known speakers named or not', async () => {
    const { t, key, lines } = await appWith(modelsDir);
    try {
      assert.ok(
        lines.some((l) => l.includes('speakers:eres2net-test+pyannote-test')),
        lines.join(''),
      );
      const body = await native(t, key);
      assertLabels(
        body.words.map((w: { speaker: number }) => w.speaker),
        'native words',
      );
      // Known speakers pass through the neural path too: each segment carries a name or a letter.
      const sample = readFileSync(flite('Good morning, this is my voice for the sample.', 'slt'));
      const known = await openaiDiarized(t, key, {
        'known_speaker_names[]': 'agent',
        'known_speaker_references[]': `data:audio/wav;base64,${sample.toString('base64')}`,
      });
      for (const s of known.segments) assert.match(s.speaker, /^(agent|[A-Z])$/);
      assert.deepEqual(await diarizedCount(t), { 'sherpa-onnx/segmentation': 2 });
    } finally {
      await t.close();
    }
  });

  test('PARLA_DIARIZATION=builtin keeps the built-in clustering although speaker models are installed', async () => {
    const { t, key } = await appWith(modelsDir, { PARLA_DIARIZATION: 'builtin' });
    try {
      assertLabels(
        (await native(t, key)).words.map((w: { speaker: number }) => w.speaker),
        'builtin',
      );
      assert.deepEqual(await diarizedCount(t), { 'builtin/features': 1 });
    } finally {
      await t.close();
    }
  });
});

describe('falling back to the built-in clustering', () => {
  test('a model changed or removed after its check: served by the built-in path, the reason logged once per reason', async () => {
    const dir = path.join(tmp.dir, 'fallback');
    await pullModel(dir, { source: files.embedding3d, name: 'emb', log: () => undefined });
    const file = path.join(dir, 'speaker', 'emb', 'model.onnx');
    const { t, key, lines } = await appWith(dir);
    try {
      writeFileSync(file, Buffer.from('not an onnx model at all'));
      assertLabels(
        (await native(t, key)).words.map((w: { speaker: number }) => w.speaker),
        'corrupt',
      );
      await native(t, key);
      // The lifecycle says each failed load; the diarizer says once per reason that the built-in path serves.
      const changed = lines.filter((l) => l.includes('cannot serve') && l.includes('emb changed since its loading check'));
      assert.equal(changed.length, 1, lines.join(''));
      assert.match(changed[0]!, /built-in clustering/);
      rmSync(file);
      await native(t, key);
      assert.ok(
        lines.some((l) => l.includes('cannot serve') && l.includes('emb: its model file is gone')),
        lines.join(''),
      );
      assert.deepEqual(await diarizedCount(t), { 'builtin/features': 3 });
    } finally {
      await t.close();
    }
  });

  test('a named model that is not installed: built-in clustering, said at start', async () => {
    const { t, key, lines } = await appWith(modelsDir, { PARLA_SPEAKER_EMBEDDING_MODEL: 'nope' });
    try {
      assert.ok(
        lines.some((l) => l.includes('PARLA_SPEAKER_EMBEDDING_MODEL=nope is no verified model')),
        lines.join(''),
      );
      await native(t, key);
      assert.deepEqual(await diarizedCount(t), { 'builtin/features': 1 });
    } finally {
      await t.close();
    }
  });
});

test("past MAX_WAITING recordings queued on the speaker thread, the next ones are the built-in path's (null, said once)", async () => {
  const lifecycle = new ModelLifecycle({ ttlMs: 60_000, memoryBudgetMB: 4096, loadWaitMs: 120_000 });
  const warned: string[] = [];
  const log = { info: () => undefined, warn: (_o: object, m: string) => void warned.push(m) };
  const config = { mode: 'auto' as const, embeddingModel: 'eres2net-test', segmentationModel: 'none', threshold: 0.5 };
  const diarizer = createSpeakerDiarizer(modelsDir, config, lifecycle, log)!;
  try {
    const wav = decodePcm16MonoWav(dialogue)!;
    assert.equal(wav.sampleRate, 16000);
    const pcm = wav.samples;
    const spans = [
      { start: 0.2, end: 2 },
      { start: 2.5, end: 5 },
    ];
    const answers = await Promise.all(Array.from({ length: MAX_WAITING + 2 }, () => diarizer.diarize(pcm, spans, [])));
    for (const a of answers.slice(0, MAX_WAITING)) {
      assert.equal(a?.method, 'embeddings');
      assert.equal(a!.labels.length, 2);
    }
    assert.deepEqual(answers.slice(MAX_WAITING), [null, null]);
    assert.equal(warned.filter((m) => m.includes('already waiting')).length, 1, warned.join('\n'));
  } finally {
    await lifecycle.close();
  }
});
