// `parla models ...`: the operator's model manager (catalog, pull, list, verify, remove, bind,
// unbind) over PARLA_MODELS_DIR and the data directory's operator settings. Failures of a pull
// (checksum, unsafe archive, a model that fails its loading check) exit 1 with the reason.

import type { Config } from '../config.js';
import { UPSTREAM_MODELS } from '../models/upstream.js';
import { FORMAT_INFO } from '../models/formats.js';
import { readOperatorSettings, writeOperatorSettings } from '../models/operator-settings.js';
import { pullModel, verifyModel } from '../models/pull.js';
import { installedModels, readManifest, removeModel, type ModelRecord } from '../models/store.js';
import { output, parse, UsageError } from './args.js';
import { NEURAL_TTS_MODELS } from '../registry/neural-voices.js';

const mb = (bytes: number) => (bytes < 1048576 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1048576).toFixed(1)} MB`);

function recordJson(r: ModelRecord, serves: string[]) {
  return { ...r, serves };
}

function servesOf(config: Config, name: string): string[] {
  const { modelBindings } = readOperatorSettings(config.dataDir);
  return Object.entries(modelBindings)
    .filter(([, m]) => m === name)
    .map(([p]) => p)
    .sort();
}

/** The TTS product models a verified voice takes over without a binding (docs/engines.md "Aura voices on a neural model"). */
function takesOver(r: ModelRecord | null): string[] {
  // The synthesis engine serves the Piper and Kokoro layouts (src/engines/sherpa/models.ts), not yet a lexicon VITS.
  return r && r.status === 'ok' && (r.format === 'piper' || r.format === 'kokoro') ? [...NEURAL_TTS_MODELS] : [];
}

function takeOverLine(r: ModelRecord): string {
  const t = takesOver(r);
  return t.length
    ? `; from the next start it speaks ${t.join(', ')}'s Aura voices of ${r.languages.join(', ')} (each with a speaker of the voice's gender)`
    : '';
}

function checkLine(r: ModelRecord): string {
  const c = r.check;
  if (!c) return '';
  return `load ${c.loadMs} ms, the model adds ${(c.rssLoadedMB - c.rssBeforeMB).toFixed(1)} MB resident (${c.rssLoadedMB} MB after load, peak ${c.peakRssMB} MB), real-time factor ${c.rtf ?? '?'} on ${c.audioSeconds} s`;
}

export async function modelsCommand(config: Config, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const dir = config.modelsDir;
  switch (sub) {
    case 'catalog': {
      const { values } = parse(rest, {}, false);
      output(!!values.json, UPSTREAM_MODELS, () =>
        UPSTREAM_MODELS.map(
          (e) =>
            `${e.name.padEnd(38)} ${e.kind}  ${e.format.padEnd(21)} ${e.languages.join(',').padEnd(20)} ${e.unpackedMB ? `${e.unpackedMB} MB unpacked` : 'size unknown'}  ${e.licence}\n${' '.repeat(39)}${e.url}${e.sha256 ? '' : '  (no published sha256: pull prints the computed one; --sha256 checks one)'}${e.published ? `\n${' '.repeat(39)}${e.published.figure} (${e.published.source})` : ''}`,
        ).join('\n'),
      );
      return 0;
    }
    case 'pull': {
      const { values, positionals } = parse(rest, { sha256: { type: 'string' }, name: { type: 'string' } });
      if (positionals.length !== 1) throw new UsageError('usage: parla models pull NAME|URL|ARCHIVE [--sha256 HEX] [--name DIR]');
      if (typeof values.sha256 === 'string' && !/^[0-9a-fA-F]{64}$/.test(values.sha256))
        throw new UsageError('--sha256 must be 64 hexadecimal digits');
      const record = await pullModel(dir, {
        source: positionals[0]!,
        ...(typeof values.sha256 === 'string' ? { sha256: values.sha256 } : {}),
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
      });
      output(
        !!values.json,
        recordJson(record, servesOf(config, record.name)),
        () =>
          `installed ${record.name}: ${FORMAT_INFO[record.format].title}, ${record.kind}/${record.name}, ${mb(record.sizeBytes)}; ${checkLine(record)}${takeOverLine(record)}`,
      );
      return 0;
    }
    case 'list': {
      const { values } = parse(rest, {}, false);
      const { modelBindings } = readOperatorSettings(config.dataDir);
      const rows = installedModels(dir).map((m) => ({
        name: m.name,
        kind: m.kind,
        format: m.record?.format ?? null,
        languages: m.record?.languages ?? [],
        size_bytes: m.record?.sizeBytes ?? null,
        status: m.status,
        sha256: m.record?.source.sha256 ?? null,
        check: m.record?.check ?? null,
        serves: Object.entries(modelBindings)
          .filter(([, n]) => n === m.name)
          .map(([p]) => p)
          .sort(),
        takes_over: takesOver(m.record),
      }));
      output(!!values.json, rows, () =>
        rows.length
          ? rows
              .map(
                (r) =>
                  `${r.name}  ${r.kind ?? '?'}  ${r.format ?? '?'}  ${r.languages.join(',') || '-'}  ${r.size_bytes === null ? '-' : mb(r.size_bytes)}  ${r.status}${r.serves.length ? `  serves ${r.serves.join(', ')}` : ''}${r.takes_over.length ? `  takes over ${r.takes_over.join(', ')}` : ''}`,
              )
              .join('\n')
          : `no models in ${dir} (parla models catalog, parla models pull)`,
      );
      return 0;
    }
    case 'verify': {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 1) throw new UsageError('usage: parla models verify NAME');
      const record = await verifyModel(dir, positionals[0]!);
      output(!!values.json, recordJson(record, servesOf(config, record.name)), () =>
        record.status === 'ok' ? `${record.name}: ok; ${checkLine(record)}` : `${record.name}: failed: ${record.reason}`,
      );
      return record.status === 'ok' ? 0 : 1;
    }
    case 'remove': {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 1) throw new UsageError('usage: parla models remove NAME');
      const name = positionals[0]!;
      const bound = servesOf(config, name);
      if (bound.length) throw new UsageError(`${name} serves ${bound.join(', ')}; unbind it first (parla models unbind ${bound[0]})`);
      if (!removeModel(dir, name)) throw new UsageError(`no installed model named ${name}`);
      output(!!values.json, { removed: name }, () => `removed ${name}`);
      return 0;
    }
    case 'bind': {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 2) throw new UsageError('usage: parla models bind PRODUCT_MODEL NAME');
      const [product, name] = positionals as [string, string];
      const productKind = product in config.product.sttBindings ? 'stt' : product in config.product.ttsBindings ? 'tts' : null;
      if (!productKind)
        throw new UsageError(
          `unknown product model "${product}" (speech recognition: ${Object.keys(config.product.sttBindings).join(', ')}; synthesis: ${Object.keys(config.product.ttsBindings).join(', ')})`,
        );
      const record = readManifest(dir).models[name];
      const installed = installedModels(dir).find((m) => m.name === name);
      if (!record || !installed?.dir) throw new UsageError(`no installed model named ${name} (parla models list)`);
      if (record.status !== 'ok')
        throw new UsageError(`${name} did not pass its loading check (${record.reason ?? 'failed'}); it cannot serve`);
      if (record.kind !== productKind)
        throw new UsageError(
          `${name} is a ${record.kind === 'stt' ? 'speech recognition' : record.kind === 'tts' ? 'synthesis' : 'turn (PARLA_TURN_MODEL)'} model; ${product} is a ${productKind === 'stt' ? 'speech recognition' : 'synthesis'} product model`,
        );
      const settings = readOperatorSettings(config.dataDir);
      settings.modelBindings[product] = name;
      writeOperatorSettings(config.dataDir, settings);
      output(
        !!values.json,
        { product_model: product, model: name },
        () =>
          `${product} -> ${name} first, then ${JSON.stringify(productKind === 'stt' ? config.product.sttBindings[product] : config.product.ttsBindings[product])} (in effect when the server reads the operator settings)`,
      );
      return 0;
    }
    case 'unbind': {
      const { values, positionals } = parse(rest, {});
      if (positionals.length !== 1) throw new UsageError('usage: parla models unbind PRODUCT_MODEL');
      const product = positionals[0]!;
      const settings = readOperatorSettings(config.dataDir);
      if (!(product in settings.modelBindings)) throw new UsageError(`${product} has no model bound`);
      delete settings.modelBindings[product];
      writeOperatorSettings(config.dataDir, settings);
      output(!!values.json, { product_model: product, model: null }, () => `${product}: back to its configured engines`);
      return 0;
    }
    default:
      throw new UsageError('usage: parla models catalog|pull|list|verify|remove|bind|unbind (parla help)');
  }
}
