// What the operator's bindings mean at server start: for each product model bound in
// operator-settings.json, the installed model that is to serve it first, or why it cannot (not
// installed, not passed its loading check, a synthesis model bound to a recognition product model,
// an unknown product model). The registry puts each resolved model at the head of that product
// model's engine chain and reports the problems; a problem never stops the server.

import type { ModelFormat, ModelKind } from './formats.js';
import { readOperatorSettings } from './operator-settings.js';
import type { ModelFiles } from './probe.js';
import { verifiedModels, readManifest } from './store.js';

export interface ResolvedBinding {
  productModel: string;
  model: string;
  kind: ModelKind;
  format: ModelFormat;
  dir: string;
  files: ModelFiles;
  languages: string[];
}

export interface BindingProblem {
  productModel: string;
  model: string;
  problem: string;
}

export function resolveModelBindings(
  dataDir: string,
  modelsDir: string,
  productModels: { stt: readonly string[]; tts: readonly string[] },
): { bindings: ResolvedBinding[]; problems: BindingProblem[] } {
  const { modelBindings } = readOperatorSettings(dataDir);
  const verified = new Map(verifiedModels(modelsDir).map((m) => [m.name, m]));
  const recorded = readManifest(modelsDir).models;
  const bindings: ResolvedBinding[] = [];
  const problems: BindingProblem[] = [];
  for (const [productModel, model] of Object.entries(modelBindings).sort(([a], [b]) => a.localeCompare(b))) {
    const want: ModelKind | null = productModels.stt.includes(productModel)
      ? 'stt'
      : productModels.tts.includes(productModel)
        ? 'tts'
        : null;
    const m = verified.get(model);
    const problem = !want
      ? 'unknown product model'
      : !m
        ? recorded[model]?.status === 'failed'
          ? `failed its loading check: ${recorded[model]!.reason ?? 'unknown'}`
          : 'not installed (or its folder is gone)'
        : m.kind !== want
          ? `a ${m.kind} model cannot serve a ${want} product model`
          : null;
    if (problem || !m || !want) problems.push({ productModel, model, problem: problem ?? 'unknown' });
    else bindings.push({ productModel, model, kind: m.kind, format: m.format, dir: m.dir, files: m.files, languages: m.languages });
  }
  return { bindings, problems };
}
