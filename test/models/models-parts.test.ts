// The model manager's parts that the CLI test cannot reach one by one: the operator settings reader
// (what the server will use), the ONNX metadata reader on files that are not ONNX, the archive entry
// check, the format probe's refusals, how bindings resolve at start, a stalled download.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir } from '../helpers/env.js';
import {
  operatorSettingsPath,
  OperatorSettingsError,
  readOperatorSettings,
  writeOperatorSettings,
} from '../../src/models/operator-settings.js';
import { OnnxReadError, readOnnxMetadata } from '../../src/models/onnx-metadata.js';
import { entryProblem, unpackArchive, UnsafeArchiveError } from '../../src/models/unpack.js';
import { probeModel, ProbeError } from '../../src/models/probe.js';
import { speechLikeSamples } from '../../src/models/sample.js';
import { saveRecord } from '../../src/models/store.js';
import { resolveModelBindings } from '../../src/models/bindings.js';
import { downloadFile, DownloadError } from '../../src/models/download.js';

const tmp = tempDir('parla-model-parts-');
after(() => tmp.cleanup());

test('operator settings: missing file is empty; written bindings read back; malformed files are errors', () => {
  const dir = path.join(tmp.dir, 'data');
  assert.deepEqual(readOperatorSettings(dir), { modelBindings: {} });
  writeOperatorSettings(dir, { modelBindings: { 'cipher-max': 'whisper-base.en' } });
  assert.deepEqual(readOperatorSettings(dir).modelBindings, { 'cipher-max': 'whisper-base.en' });
  for (const [text, why] of [
    ['{', /not valid JSON/],
    ['[]', /must hold a JSON object/],
    ['{"modelBindings": ["x"]}', /modelBindings must be an object/],
    ['{"modelBindings": {"cipher-max": "../../etc"}}', /modelBindings\.cipher-max must be an installed model's name/],
    ['{"modelBindings": {"cipher-max": 3}}', /must be an installed model's name/],
    ['{"modelBindings": {"Bad Name": "m"}}', /"Bad Name" is not a product model name/],
  ] as const) {
    writeFileSync(operatorSettingsPath(dir), text);
    assert.throws(
      () => readOperatorSettings(dir),
      (e: unknown) => e instanceof OperatorSettingsError && why.test(e.message),
      text,
    );
  }
});

test('ONNX metadata reader: text, empty and truncated files are not ONNX models', () => {
  const f = path.join(tmp.dir, 'x.onnx');
  for (const body of ['not a model', '', '\x08\x08\x3a\xff\xff\xff\x0f']) {
    writeFileSync(f, body, 'latin1');
    assert.throws(() => readOnnxMetadata(f), OnnxReadError, JSON.stringify(body));
  }
});

test('archive entries: only relative paths and links that stay inside the folder', () => {
  const root = '/models/.staging/x';
  assert.equal(entryProblem(root, 'm/model.onnx', 'File'), null);
  assert.equal(entryProblem(root, 'm/espeak-ng-data/', 'Directory'), null);
  assert.equal(entryProblem(root, 'm/model.onnx', 'SymbolicLink', 'model.int8.onnx'), null);
  assert.match(entryProblem(root, '../x', 'File') ?? '', /outside/);
  assert.match(entryProblem(root, 'm/../../x', 'File') ?? '', /outside/);
  assert.match(entryProblem(root, '/etc/passwd', 'File') ?? '', /absolute/);
  assert.match(entryProblem(root, 'C:/x', 'File') ?? '', /absolute/);
  assert.match(entryProblem(root, 'm/x', 'SymbolicLink', '/etc/passwd') ?? '', /absolute/);
  assert.match(entryProblem(root, 'm/x', 'SymbolicLink', '../../y') ?? '', /links outside/);
  assert.match(entryProblem(root, 'm/x', 'Link', '../y') ?? '', /links outside/);
  assert.match(entryProblem(root, 'm/dev', 'CharacterDevice') ?? '', /CharacterDevice entry/);
});

test('unpack refuses an unknown archive type and a zip entry named with ..', async () => {
  await assert.rejects(unpackArchive(path.join(tmp.dir, 'x.rar'), path.join(tmp.dir, 'u1')), /not a \.tar\.bz2/);
  // A minimal zip (stored, no compression) holding "../evil.txt", written byte by byte.
  const name = Buffer.from('../evil.txt');
  const data = Buffer.from('x');
  const crc = 0x8cdc1683; // crc32("x")
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(1, 18);
  local.writeUInt32LE(1, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(10, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(1, 20);
  central.writeUInt32LE(1, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  end.writeUInt32LE(30 + name.length + 1, 16);
  const zip = path.join(tmp.dir, 'evil.zip');
  writeFileSync(zip, Buffer.concat([local, name, data, central, name, end]));
  await assert.rejects(
    unpackArchive(zip, path.join(tmp.dir, 'u2', 'inner')),
    (e: unknown) => e instanceof UnsafeArchiveError && /unsafe archive refused/.test((e as Error).message),
  );
});

test('the probe refuses folders of no supported format, with the reason', () => {
  const dir = path.join(tmp.dir, 'probe');
  mkdirSync(dir, { recursive: true });
  assert.throws(
    () => probeModel(dir),
    (e: unknown) => e instanceof ProbeError && /no \.onnx file/.test((e as Error).message),
  );
  writeFileSync(path.join(dir, 'a.onnx'), 'x');
  // One .onnx file without tokens.txt may be a turn model; it must at least be ONNX.
  assert.throws(() => probeModel(dir), /a\.onnx is not an ONNX model/);
  writeFileSync(path.join(dir, 'b.onnx'), 'x');
  assert.throws(() => probeModel(dir), /no tokens\.txt/);
  rmSync(path.join(dir, 'b.onnx'));
  writeFileSync(path.join(dir, 'tokens.txt'), '<blk> 0\n');
  assert.throws(() => probeModel(dir), /a\.onnx is not an ONNX model/);
  writeFileSync(path.join(dir, 'voices.bin'), '');
  assert.throws(() => probeModel(dir), /Kokoro needs model\.onnx, voices\.bin, tokens\.txt and espeak-ng-data/);
});

test('the built-in sample is bounded, non-silent audio of the asked length', () => {
  const s = speechLikeSamples(1.5);
  assert.equal(s.length, 24000);
  let peak = 0;
  let energy = 0;
  for (const v of s) {
    peak = Math.max(peak, Math.abs(v));
    energy += v * v;
  }
  assert.ok(peak <= 1 && peak > 0.05, `peak ${peak}`);
  assert.ok(Math.sqrt(energy / s.length) > 0.01);
});

test('bindings at start: verified models of the right kind serve; the rest are problems, not crashes', () => {
  const dataDir = path.join(tmp.dir, 'bind-data');
  const modelsDir = path.join(dataDir, 'models');
  const record = (name: string, kind: 'stt' | 'tts', status: 'ok' | 'failed') => ({
    name,
    kind,
    format: kind === 'stt' ? ('whisper' as const) : ('piper' as const),
    languages: ['en'],
    files: { tokens: 'tokens.txt' },
    sizeBytes: 1,
    source: { url: null, archive: null, sha256: null, catalog: null },
    status,
    ...(status === 'failed' ? { reason: 'exit 255' } : {}),
    check: null,
    installedAt: '',
    verifiedAt: null,
  });
  for (const [name, kind, status] of [
    ['w', 'stt', 'ok'],
    ['p', 'tts', 'ok'],
    ['bad', 'stt', 'failed'],
    ['gone', 'stt', 'ok'],
  ] as const) {
    saveRecord(modelsDir, record(name, kind, status));
    if (name !== 'gone' && name !== 'bad') mkdirSync(path.join(modelsDir, kind, name), { recursive: true });
  }
  writeOperatorSettings(dataDir, {
    modelBindings: { 'cipher-max': 'w', 'aura-max': 'p', 'lucid-mono': 'bad', 'lucid-lite': 'gone', 'cipher-fast': 'p', 'nope-x': 'w' },
  });
  const { bindings, problems } = resolveModelBindings(dataDir, modelsDir, {
    stt: ['cipher-fast', 'cipher-max', 'lucid-mono', 'lucid-lite'],
    tts: ['aura-max'],
  });
  assert.deepEqual(
    bindings.map((b) => [b.productModel, b.model, b.kind, b.dir]),
    [
      ['aura-max', 'p', 'tts', path.join(modelsDir, 'tts', 'p')],
      ['cipher-max', 'w', 'stt', path.join(modelsDir, 'stt', 'w')],
    ],
  );
  assert.deepEqual(
    problems.map((p) => [p.productModel, p.problem]),
    [
      ['cipher-fast', 'a tts model cannot serve a stt product model'],
      ['lucid-lite', 'not installed (or its folder is gone)'],
      ['lucid-mono', 'failed its loading check: exit 255'],
      ['nope-x', 'unknown product model'],
    ],
  );
});

test('a download that stalls is given up after the idle time, keeping its .part file', async () => {
  const body = Buffer.alloc(64 * 1024, 7);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-length': body.length });
    res.write(body.subarray(0, 1000)); // then nothing more
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const quiet = { start() {}, update() {}, end() {} };
  const dest = path.join(tmp.dir, 'stalled.bin');
  try {
    await assert.rejects(
      downloadFile(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x.tar.gz`, dest, quiet, 300),
      (e: unknown) =>
        e instanceof DownloadError &&
        /download interrupted after \d+ of 65536 bytes \(nothing received for 0\.3 s\); run the same command again to resume/.test(
          (e as Error).message,
        ),
    );
    assert.ok(existsSync(`${dest}.part`) && !existsSync(dest));
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
