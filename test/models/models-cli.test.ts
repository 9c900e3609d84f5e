// The model manager as an operator uses it: `parla models ...` run as a child process against
// archives of generated models (every supported format) served by a local HTTP server.
// Covers the three archive types, the checksum, a resumed download, unsafe archives, a model the
// native loader rejects, verify, bind/unbind (and the settings reader the server will use), remove.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar';
import { tempDir } from '../helpers/env.js';
import { generateSherpaModels, type GeneratedModels } from '../helpers/sherpa-models.js';
import { readOperatorSettings } from '../../src/models/operator-settings.js';
import { verifiedModels } from '../../src/models/store.js';
import { parlaArgs } from '../helpers/parla-command.js';

const tmp = tempDir('parla-models-');
const dataDir = path.join(tmp.dir, 'data');
const modelsDir = path.join(dataDir, 'models');
const served = new Map<string, Buffer>();
const ranges: string[] = [];
let cutNext = false;
let heldOpen: import('node:net').Socket | null = null;
let server: http.Server;
let base = '';
let models: GeneratedModels;

function parla(...args: string[]): Promise<{ code: number | null; out: string; err: string; json: () => any }> {
  return new Promise((resolve) => {
    // Asynchronous: the archives come from a server in this process.
    const child = spawn(process.execPath, parlaArgs(['models', ...args]), {
      env: { ...process.env, PARLA_DATA_DIR: dataDir, PARLA_MODELS_DIR: '', LOG_LEVEL: 'silent' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err, json: () => JSON.parse(out) }));
  });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Packs `dir` as `<top>/...` into an archive of the given type. */
function pack(dir: string, top: string, type: 'tar.bz2' | 'tar.gz' | 'zip'): Buffer {
  const work = path.join(tmp.dir, 'pack', `${top}-${type}`);
  mkdirSync(work, { recursive: true });
  cpSync(dir, path.join(work, top), { recursive: true });
  const file = path.join(work, `out.${type}`);
  if (type === 'tar.gz') tar.c({ gzip: true, file, cwd: work, sync: true, portable: true }, [top]);
  else if (type === 'tar.bz2') execFileSync('tar', ['-cjf', file, '-C', work, top]);
  else execFileSync('zip', ['-qr', file, top], { cwd: work });
  return readFileSync(file);
}

/** A gzipped tar written entry by entry, for archives no well-behaved tool would make. */
function rawTarGz(entries: Array<{ path: string; type: 'File' | 'SymbolicLink'; body?: string; linkpath?: string }>): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const header = new tar.Header({
      path: e.path,
      type: e.type,
      size: e.type === 'File' ? body.length : 0,
      mode: 0o644,
      mtime: new Date(0),
      uid: 0,
      gid: 0,
      ...(e.linkpath ? { linkpath: e.linkpath } : {}),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (e.type === 'File' && body.length) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

before(async () => {
  models = generateSherpaModels(path.join(tmp.dir, 'generated'));
  served.set('sherpa-onnx-whisper-gen.tar.bz2', pack(models.whisper, 'sherpa-onnx-whisper-gen', 'tar.bz2'));
  served.set('nemo-ctc-gen.zip', pack(models.nemoCtc, 'nemo-ctc-gen', 'zip'));
  served.set('zipformer2-ctc-gen.tar.gz', pack(models.zipformerCtc, 'zipformer2-ctc-gen', 'tar.gz'));
  served.set('zipformer-transducer-gen.tar.gz', pack(models.zipformerTransducer, 'zipformer-transducer-gen', 'tar.gz'));
  served.set('vits-piper-en_US-gen.tar.bz2', pack(models.piper, 'vits-piper-en_US-gen', 'tar.bz2'));
  served.set('vits-lexicon-gen.zip', pack(models.vitsLexicon, 'vits-lexicon-gen', 'zip'));
  served.set('kokoro-gen.tar.gz', pack(models.kokoro, 'kokoro-gen', 'tar.gz'));
  // NeMo CTC whose tokens.txt lacks the blank symbol: sherpa-onnx ends the loading process (exit 255).
  const broken = path.join(tmp.dir, 'broken');
  cpSync(models.nemoCtc, broken, { recursive: true });
  writeFileSync(path.join(broken, 'tokens.txt'), readFileSync(path.join(broken, 'tokens.txt'), 'utf8').replace('<blk> 0', '<x> 0'));
  served.set('broken-nemo.tar.gz', pack(broken, 'broken-nemo', 'tar.gz'));
  served.set(
    'dotdot.tar.gz',
    rawTarGz([
      { path: 'm/tokens.txt', type: 'File', body: 'a 0\n' },
      { path: 'm/../../escaped.txt', type: 'File', body: 'outside\n' },
    ]),
  );
  served.set(
    'linkout.tar.gz',
    rawTarGz([
      { path: 'm/tokens.txt', type: 'File', body: 'a 0\n' },
      { path: 'm/espeak-ng-data', type: 'SymbolicLink', linkpath: '../../../../etc' },
    ]),
  );
  served.set('absolute.tar.gz', rawTarGz([{ path: '/tmp/parla-absolute-escape.txt', type: 'File', body: 'x\n' }]));
  served.set(
    'not-a-model.tar.gz',
    rawTarGz([
      { path: 'm/model.onnx', type: 'File', body: 'not a model' },
      { path: 'm/tokens.txt', type: 'File', body: '<blk> 0\n' },
    ]),
  );

  server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('/').pop() ?? '');
    const body = served.get(name);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const range = req.headers.range;
    if (range) ranges.push(`${name} ${range}`);
    const m = range ? /^bytes=(\d+)-$/.exec(range) : null;
    if (m) {
      const start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}`, 'content-length': body.length - start });
      res.end(body.subarray(start));
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
    if (cutNext) {
      // Half the body, then the connection is held open until the test drops it.
      cutNext = false;
      heldOpen = res.socket;
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((r) => server.close(r));
  tmp.cleanup();
});

const listJson = async () => {
  const r = await parla('list', '--json');
  assert.equal(r.code, 0, r.err);
  return r.json() as Array<{
    name: string;
    kind: string;
    format: string;
    languages: string[];
    status: string;
    sha256: string;
    serves: string[];
    check: any;
  }>;
};

describe('parla models', () => {
  test('catalog: sherpa-onnx release archives with format, languages, licence; checksums null or hex', async () => {
    const r = await parla('catalog', '--json');
    assert.equal(r.code, 0, r.err);
    const entries = r.json() as Array<Record<string, any>>;
    assert.ok(entries.length >= 10);
    const formats = new Set(entries.map((e) => e.format));
    for (const f of ['whisper', 'nemo-ctc', 'zipformer-transducer', 'zipformer2-ctc', 'piper', 'kokoro']) assert.ok(formats.has(f), f);
    for (const e of entries) {
      assert.match(e.url, /^https:\/\/github\.com\/k2-fsa\/sherpa-onnx\/releases\/download\/(asr|tts)-models\/[\w.-]+\.tar\.bz2$/);
      assert.ok(e.sha256 === null || /^[0-9a-f]{64}$/.test(e.sha256));
      assert.ok(e.languages.length > 0 && e.licence && (e.kind === 'stt' || e.kind === 'tts'));
    }
    const human = await parla('catalog');
    assert.match(human.out, /whisper-base\.en .*stt {2}whisper/);
    assert.match(human.out, /pull prints the computed one/);
  });

  test('pull installs each generated format from .tar.bz2, .tar.gz and .zip, after loading it in a child', async () => {
    const whisper = served.get('sherpa-onnx-whisper-gen.tar.bz2')!;
    const cases: Array<[string, string, string, string, string[]]> = [
      // archive, --name or '', expected name, format, languages
      ['sherpa-onnx-whisper-gen.tar.bz2', '', 'whisper-gen', 'whisper', ['en', 'de']],
      ['nemo-ctc-gen.zip', '', 'nemo-ctc-gen', 'nemo-ctc', []],
      ['zipformer2-ctc-gen.tar.gz', 'zc', 'zc', 'zipformer2-ctc', []],
      ['zipformer-transducer-gen.tar.gz', '', 'zipformer-transducer-gen', 'zipformer-transducer', []],
      ['vits-piper-en_US-gen.tar.bz2', 'piper-gen', 'piper-gen', 'piper', ['en-US']],
      ['vits-lexicon-gen.zip', '', 'vits-lexicon-gen', 'vits', []],
      ['kokoro-gen.tar.gz', '', 'kokoro-gen', 'kokoro', ['en-US', 'en-GB']],
    ];
    // All at once: each pull records its model in the one manifest (under its lock).
    const runs = await Promise.all(
      cases.map(([archive, name]) =>
        parla(
          'pull',
          `${base}/files/${archive}`,
          '--json',
          ...(name ? ['--name', name] : []),
          ...(archive === 'sherpa-onnx-whisper-gen.tar.bz2' ? ['--sha256', sha256(whisper).toUpperCase()] : []),
        ),
      ),
    );
    for (const [i, [archive, , expected, format, languages]] of cases.entries()) {
      const r = runs[i]!;
      assert.equal(r.code, 0, `${archive}: ${r.err}`);
      const rec = r.json();
      assert.equal(rec.name, expected);
      assert.equal(rec.format, format);
      assert.equal(rec.status, 'ok');
      assert.deepEqual(rec.languages, languages);
      assert.equal(rec.source.sha256, sha256(served.get(archive)!));
      assert.ok(rec.check.loadMs >= 0 && rec.check.rtf > 0 && rec.check.peakRssMB > rec.check.rssBeforeMB - 1, JSON.stringify(rec.check));
      assert.ok(
        existsSync(path.join(modelsDir, rec.kind, expected, 'tokens.txt')),
        `${rec.kind}/${expected} unpacked without its top folder`,
      );
      assert.match(r.err, archive.startsWith('sherpa-onnx-whisper') ? /sha256 ok/ : /no checksum was given/);
    }
    const rows = await listJson();
    assert.deepEqual(
      rows.map((x) => [x.name, x.kind, x.status]),
      [
        ['kokoro-gen', 'tts', 'ok'],
        ['nemo-ctc-gen', 'stt', 'ok'],
        ['piper-gen', 'tts', 'ok'],
        ['vits-lexicon-gen', 'tts', 'ok'],
        ['whisper-gen', 'stt', 'ok'],
        ['zc', 'stt', 'ok'],
        ['zipformer-transducer-gen', 'stt', 'ok'],
      ],
    );
    assert.deepEqual(
      verifiedModels(modelsDir).map((m) => m.name),
      rows.map((x) => x.name),
    );
    // Verified voices take over aura-max's Aura voices without a binding; recognition models do not.
    assert.deepEqual(
      rows.filter((x) => (x as { takes_over?: string[] }).takes_over?.length).map((x) => x.name),
      ['kokoro-gen', 'piper-gen'],
      'a lexicon VITS is verified but not served by the synthesis engine',
    );
    assert.deepEqual((rows.find((x) => x.name === 'kokoro-gen') as { takes_over?: string[] }).takes_over, ['aura-max']);
    assert.match((await parla('list')).out, /kokoro-gen {2}tts {2}kokoro {2}en-US,en-GB {2}\d+ KB {2}ok {2}takes over aura-max/);
    assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), [], 'downloaded archives are deleted once installed');
    const again = await parla('pull', `${base}/files/nemo-ctc-gen.zip`);
    assert.equal(again.code, 1);
    assert.match(again.err, /already installed/);
  });

  test('a wrong checksum deletes the download and fails', async () => {
    const r = await parla('pull', `${base}/files/zipformer2-ctc-gen.tar.gz`, '--name', 'zc-bad', '--sha256', '0'.repeat(64));
    assert.equal(r.code, 1);
    assert.match(r.err, /checksum mismatch .*expected sha256 0{64}, got [0-9a-f]{64}; the download was deleted/);
    assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), []);
    assert.ok(!existsSync(path.join(modelsDir, 'stt', 'zc-bad')));
    assert.equal((await parla('pull', 'x.tar.gz', '--sha256', 'abc')).code, 2);
  });

  test('an interrupted download resumes with an HTTP Range request', async () => {
    const archive = 'zipformer-transducer-gen.tar.gz';
    const size = served.get(archive)!.length;
    cutNext = true;
    const pulling = parla('pull', `${base}/files/${archive}`, '--name', 'zt-resumed');
    // The connection drops once the first half is on disk.
    const partFile = path.join(modelsDir, '.downloads', 'zt-resumed.tar.gz.part');
    for (let waited = 0; !(existsSync(partFile) && statSync(partFile).size === Math.floor(size / 2)); waited += 50) {
      assert.ok(waited < 60_000, 'the first half never reached the .part file');
      await new Promise((r) => setTimeout(r, 50));
    }
    heldOpen!.destroy();
    const first = await pulling;
    assert.equal(first.code, 1);
    assert.match(first.err, /download interrupted after \d+ of \d+ bytes.*run the same command again to resume/);
    const part = readdirSync(path.join(modelsDir, '.downloads')).find((f) => f.endsWith('.part'));
    assert.ok(part, 'the partial download is kept');
    const partSize = readFileSync(path.join(modelsDir, '.downloads', part)).length;
    assert.equal(partSize, Math.floor(size / 2));
    const second = await parla(
      'pull',
      `${base}/files/${archive}`,
      '--name',
      'zt-resumed',
      '--sha256',
      sha256(served.get(archive)!),
      '--json',
    );
    assert.equal(second.code, 0, second.err);
    assert.match(second.err, /resuming at/);
    assert.ok(ranges.includes(`${archive} bytes=${partSize}-`), ranges.join('; '));
    assert.equal(second.json().status, 'ok');
    assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), []);
  });

  test('archives with ../ entries, absolute paths or links out of the folder are refused; nothing lands', async () => {
    for (const [archive, why] of [
      ['dotdot.tar.gz', /unsafe archive refused: "m\/\.\.\/\.\.\/escaped\.txt" would land outside/],
      ['linkout.tar.gz', /unsafe archive refused: "m\/espeak-ng-data" links outside the target folder/],
      ['absolute.tar.gz', /unsafe archive refused: "\/tmp\/parla-absolute-escape\.txt" is an absolute path/],
    ] as const) {
      const r = await parla('pull', `${base}/files/${archive}`, '--name', 'evil');
      assert.equal(r.code, 1, `${archive}: ${r.err}`);
      assert.match(r.err, why);
    }
    assert.ok(
      !existsSync(path.join(modelsDir, 'escaped.txt')) &&
        !existsSync(path.join(modelsDir, '.staging', 'escaped.txt')) &&
        !existsSync('/tmp/parla-absolute-escape.txt'),
    );
    assert.ok(!existsSync(path.join(modelsDir, 'stt', 'evil')) && !existsSync(path.join(modelsDir, 'tts', 'evil')));
    assert.deepEqual(readdirSync(path.join(modelsDir, '.staging')), []);
    assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), [], 'refused downloads are deleted');
    const notModel = await parla('pull', `${base}/files/not-a-model.tar.gz`, '--name', 'junk');
    assert.equal(notModel.code, 1);
    assert.match(notModel.err, /holds no supported model: model\.onnx is not an ONNX model/);
  });

  // Issue 30, item 11: archive bombs (small on disk), a symlink chain, a file name from the URL.
  test('archive bombs are refused in every format (bytes and entries) and cleaned up', async () => {
    const work = path.join(tmp.dir, 'bombs');
    mkdirSync(work, { recursive: true });
    const zeros = 200_000_000;
    // zip: one entry of 200 MB of zeros (about 190 KB).
    execFileSync('sh', ['-c', `head -c ${zeros} /dev/zero | zip -q ${path.join(work, 'z.zip')} -`]);
    served.set('bomb.zip', readFileSync(path.join(work, 'z.zip')));
    // tar.bz2: a tar of one 200 MB file of zeros, through bzip2 (a few hundred bytes).
    const header = Buffer.alloc(512);
    new tar.Header({ path: 'm/zeros.bin', type: 'File', size: zeros, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }).encode(header, 0);
    writeFileSync(path.join(work, 'h.bin'), header);
    execFileSync('sh', [
      '-c',
      `(cat ${path.join(work, 'h.bin')}; head -c ${zeros} /dev/zero; head -c 1024 /dev/zero) | bzip2 -c > ${path.join(work, 'b.tar.bz2')}`,
    ]);
    served.set('bomb.tar.bz2', readFileSync(path.join(work, 'b.tar.bz2')));
    assert.ok(served.get('bomb.tar.bz2')!.length < 4096, String(served.get('bomb.tar.bz2')!.length));
    // tar.gz: 25,000 empty entries.
    served.set('many.tar.gz', rawTarGz(Array.from({ length: 25_000 }, (_, i) => ({ path: `m/f${i}.txt`, type: 'File' as const }))));
    // zip: 25,000 entries.
    const manyDir = path.join(work, 'many');
    mkdirSync(manyDir, { recursive: true });
    for (let i = 0; i < 25_000; i++) writeFileSync(path.join(manyDir, `f${i}`), '');
    execFileSync('zip', ['-qr', path.join(work, 'many.zip'), 'many'], { cwd: work });
    served.set('many.zip', readFileSync(path.join(work, 'many.zip')));
    for (const [archive, why] of [
      ['bomb.zip', /unsafe archive refused: bomb\.zip unpacks to more than 64 MiB/],
      ['bomb.tar.bz2', /unsafe archive refused: bomb\.tar\.bz2 unpacks to more than 64 MiB/],
      ['many.tar.gz', /unsafe archive refused: many\.tar\.gz has more than 20000 entries/],
      ['many.zip', /unsafe archive refused: many\.zip has more than 20000 entries/],
    ] as const) {
      const r = await parla('pull', `${base}/files/${archive}`, '--name', 'bomb', '--json');
      assert.equal(r.code, 1, `${archive}: ${r.err}`);
      assert.match(r.err, why, archive);
      assert.doesNotMatch(r.err, /ENOTEMPTY|EEXIST|at .*\.ts:/, archive);
      assert.deepEqual(readdirSync(path.join(modelsDir, '.staging')), [], `${archive}: staging is cleaned up`);
      assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), [], `${archive}: the download is deleted`);
      assert.ok(!existsSync(path.join(modelsDir, 'stt', 'bomb')) && !existsSync(path.join(modelsDir, 'tts', 'bomb')));
    }
  });

  test('a chain of symbolic links is refused with a plain message and staging is cleaned up', async () => {
    served.set(
      'chain.tar.gz',
      rawTarGz([
        { path: 'm/tokens.txt', type: 'File', body: 'a 0\n' },
        { path: 'm/l1', type: 'SymbolicLink', linkpath: 'l2' },
        { path: 'm/l2', type: 'SymbolicLink', linkpath: 'l3' },
        { path: 'm/l3', type: 'SymbolicLink', linkpath: '.' },
        { path: 'm/l1/l2/l3/deep.txt', type: 'File', body: 'through the links\n' },
        { path: 'm/l1/x/y.txt', type: 'File', body: 'through the links\n' },
      ]),
    );
    const r = await parla('pull', `${base}/files/chain.tar.gz`, '--name', 'chain');
    assert.equal(r.code, 1, r.err);
    assert.doesNotMatch(r.err, /ENOTEMPTY|rmdir/);
    assert.match(r.err, /unsafe archive refused: chain\.tar\.gz writes an entry through a symbolic link/);
    assert.deepEqual(readdirSync(path.join(modelsDir, '.staging')), []);
    assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), []);
  });

  test('the download\'s file name never comes from the URL: "%2F.." is refused, nothing outside the models folder is touched', async () => {
    const victim = path.join(tmp.dir, 'victim.tar.gz');
    writeFileSync(victim, 'precious');
    served.set('victim.tar.gz', served.get('zipformer2-ctc-gen.tar.gz')!);
    for (const tail of [
      'x%2F..%2F..%2F..%2Fvictim.tar.gz',
      '..%2F..%2F..%2Fvictim.tar.gz',
      '%2E%2E',
      'a%5C..%5Cvictim.tar.gz',
      'a%00.tar.gz',
      '%E0%A4%A.tar.gz',
    ]) {
      const r = await parla('pull', `${base}/files/${tail}`, '--name', 'victim');
      assert.equal(r.code, 1, `${tail}: ${r.err}`);
      assert.match(r.err, /file name|not a \.tar/, tail);
    }
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.ok(!existsSync(`${victim}.part`));
    assert.deepEqual(
      readdirSync(tmp.dir).filter((f) => f.endsWith('.part')),
      [],
    );
    assert.deepEqual(readdirSync(path.join(modelsDir, '.downloads')), []);
  });

  test('a model the native loader rejects is reported, recorded as failed and never installed', async () => {
    const r = await parla('pull', `${base}/files/broken-nemo.tar.gz`);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /broken-nemo failed the loading check and was not installed: the loader process exited with code 255 .*tokens\.txt contains the symbol <blk>/,
    );
    assert.ok(!existsSync(path.join(modelsDir, 'stt', 'broken-nemo')));
    const row = (await listJson()).find((x) => x.name === 'broken-nemo');
    assert.match(row?.status ?? '', /^failed: the loader process exited with code 255/);
    assert.ok(!verifiedModels(modelsDir).some((m) => m.name === 'broken-nemo'));
    const bind = await parla('bind', 'cipher-max', 'broken-nemo');
    assert.equal(bind.code, 2);
    assert.equal((await parla('remove', 'broken-nemo')).code, 0);
  });

  test('verify, bind, unbind and remove; the operator settings reader sees the bindings', async () => {
    const v = await parla('verify', 'whisper-gen', '--json');
    assert.equal(v.code, 0, v.err);
    const rec = v.json();
    assert.equal(rec.status, 'ok');
    assert.ok(rec.check.audioSeconds === 2 && rec.check.rtf > 0 && rec.check.rssLoadedMB > 0);
    assert.match(
      (await parla('verify', 'whisper-gen')).out,
      /whisper-gen: ok; load \d+ ms, the model adds -?[\d.]+ MB resident \([\d.]+ MB after load, peak [\d.]+ MB\), real-time factor [\d.e-]+ on 2 s/,
    );

    assert.equal((await parla('bind', 'cipher-max', 'whisper-gen')).code, 0);
    assert.equal((await parla('bind', 'aura-max', 'piper-gen', '--json')).json().model, 'piper-gen');
    assert.deepEqual(readOperatorSettings(dataDir).modelBindings, { 'cipher-max': 'whisper-gen', 'aura-max': 'piper-gen' });
    const refusals: Promise<void>[] = [];
    for (const [args, why] of [
      [['bind', 'aura-max', 'whisper-gen'], /whisper-gen is a speech recognition model; aura-max is a synthesis product model/],
      [['bind', 'cipher-ultra', 'whisper-gen'], /unknown product model "cipher-ultra"/],
      [['bind', 'cipher-max', 'nope'], /no installed model named nope/],
      [['remove', 'whisper-gen'], /whisper-gen serves cipher-max; unbind it first/],
      [['unbind', 'lucid-mono'], /lucid-mono has no model bound/],
    ] as const) {
      refusals.push(
        parla(...args).then((r) => {
          assert.equal(r.code, 2, args.join(' '));
          assert.match(r.err, why);
        }),
      );
    }
    // Refusals write nothing, so they run side by side.
    await Promise.all(refusals);
    const rows = await listJson();
    assert.deepEqual(rows.find((x) => x.name === 'whisper-gen')?.serves, ['cipher-max']);
    assert.match((await parla('list')).out, /whisper-gen {2}stt {2}whisper {2}en,de {2}\d+ KB {2}ok {2}serves cipher-max/);

    assert.equal((await parla('unbind', 'cipher-max')).code, 0);
    assert.deepEqual(readOperatorSettings(dataDir).modelBindings, { 'aura-max': 'piper-gen' });
    const removed = await parla('remove', 'whisper-gen');
    assert.equal(removed.code, 0, removed.err);
    assert.ok(!existsSync(path.join(modelsDir, 'stt', 'whisper-gen')));
    assert.ok(!(await listJson()).some((x) => x.name === 'whisper-gen'));
    assert.equal((await parla('remove', 'whisper-gen')).code, 2);
  });

  test('a folder placed by hand is listed as not verified until `verify` loads it', async () => {
    cpSync(models.nemoCtc, path.join(modelsDir, 'stt', 'by-hand'), { recursive: true });
    assert.match((await listJson()).find((x) => x.name === 'by-hand')?.status ?? '', /^not verified/);
    assert.ok(!verifiedModels(modelsDir).some((m) => m.name === 'by-hand'));
    const v = await parla('verify', 'by-hand', '--json');
    assert.equal(v.code, 0, v.err);
    assert.equal((await listJson()).find((x) => x.name === 'by-hand')?.status, 'ok');
  });
});
