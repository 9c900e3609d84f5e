// The long-lived parts of one Parla node, built once at start and handed to buildApp() and the
// real-time server. Tests build the same object (test/helpers/) against real databases.

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Store } from './storage/store.js';
import type { Limiter } from './limits/limiter.js';
import { EnginePool } from './engines/pool.js';
import { Billing } from './accounts/billing.js';
import { KeyAuthenticator } from './accounts/authenticate.js';
import { openStore } from './storage/open-store.js';
import { openLimiter } from './limits/open-limiter.js';
import { TtsEngineRegistry, createTtsEngines } from './engines/registry.js';
import { Catalog } from './catalog/catalog.js';
import { PocketSphinxEngine } from './engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from './engines/pocketsphinx/warmup.js';
import { STT_MODELS, SttModels } from './stt/stt-models.js';
import { ModelLifecycle } from './engines/model-lifecycle.js';
import { createSherpaSttEngines, type SherpaSttEngine } from './engines/sherpa/sherpa-stt-engine.js';
import { resolveModelBindings } from './models/bindings.js';
import { Metrics } from './http/metrics.js';

export interface Services {
  config: Config;
  log: FastifyBaseLogger;
  store: Store;
  limiter: Limiter;
  pool: EnginePool;
  billing: Billing;
  authenticator: KeyAuthenticator;
  /** Text-to-speech engines and the voice/language catalogue built on them. */
  tts: { registry: TtsEngineRegistry; catalog: Catalog };
  /** Speech-to-text engines and the product models bound to them. */
  stt: { models: SttModels; pocketsphinx: PocketSphinxEngine; sherpa: SherpaSttEngine[]; lifecycle: ModelLifecycle };
  /** Every loaded model (recognizers, voices, PocketSphinx's decoders), the same object as stt.lifecycle. */
  lifecycle: ModelLifecycle;
  metrics: Metrics;
  /** Closes everything this object opened, in reverse order. */
  close(): Promise<void>;
}

export async function createServices(config: Config, log: FastifyBaseLogger): Promise<Services> {
  const closers: Array<() => Promise<void>> = [];
  try {
    const store = await openStore(config);
    closers.push(() => store.close());
    await store.migrate();
    const limiter = await openLimiter(config, log);
    closers.push(() => limiter.close());
    const pool = new EnginePool({ threads: config.workerThreads, maxQueue: config.engineQueueMax });
    closers.push(() => pool.close());
    // One lifecycle for every loaded model (voices, recognizers, PocketSphinx's decoders): the
    // memory budget counts them all.
    const lifecycle = new ModelLifecycle({ ttlMs: config.models.ttlSeconds * 1000, memoryBudgetMB: config.models.memoryMB, loadWaitMs: config.models.loadWaitSeconds * 1000, log });
    closers.push(() => lifecycle.close());
    const registry = new TtsEngineRegistry(config, createTtsEngines(config, pool, { espeakExtraLanguages: Catalog.espeakLanguageMap(), lifecycle }));
    for (const e of registry.all()) {
      const st = e.status();
      if (!st.available) log.warn({ engine: e.id, reason: st.reason }, 'TTS engine unavailable');
    }
    const pocketsphinx = new PocketSphinxEngine({ decodersPerProfile: config.sttDecoders, warmup: config.sttPreload ? warmupUtterance() : null, preload: config.sttPreload, lifecycle });
    if (!pocketsphinx.status().available) log.warn({ reason: pocketsphinx.status().reason }, 'PocketSphinx unavailable: speech-to-text is disabled');
    else if (config.sttPreload) await pocketsphinx.whenReady();
    const { sherpa, firstEngines } = sherpaStt(config, lifecycle, log);
    // Billing reports debits to the metrics created below.
    let metricsRef!: Metrics;
    const services: Services = {
      config,
      log,
      store,
      limiter,
      pool,
      billing: new Billing(store, config, (model, mode, credits) => metricsRef.credits.labels(model, mode).inc(credits)),
      authenticator: new KeyAuthenticator(store, config.keySecret),
      tts: { registry, catalog: new Catalog(config, registry) },
      stt: { models: new SttModels(config, [...sherpa, pocketsphinx], firstEngines), pocketsphinx, sherpa, lifecycle },
      lifecycle,
      metrics: new Metrics(pool),
      async close() {
        for (const c of closers.reverse()) await c().catch((err: unknown) => log.warn({ err }, 'close failed'));
      },
    };
    metricsRef = services.metrics;
    // Voices are known to the lifecycle as "tts:<name>"; the operator lists plain model names.
    void lifecycle.preload(config.models.preload.map((n) => (!lifecycle.has(n) && lifecycle.has(`tts:${n}`) ? `tts:${n}` : n)));
    return services;
  } catch (err) {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    throw err;
  }
}

/**
 * The sherpa-onnx recognition engines (one per installed, verified model, loaded on first use) and
 * the operator's bindings (`parla models bind`) that put one first in a product model's chain. A
 * binding that cannot be honoured is logged; it never stops the server.
 */
function sherpaStt(config: Config, lifecycle: ModelLifecycle, log: FastifyBaseLogger): { sherpa: SherpaSttEngine[]; firstEngines: Record<string, string> } {
  const sherpa = createSherpaSttEngines(config.modelsDir, lifecycle, { maxPending: Math.max(1, config.engineQueueMax) }, log);
  for (const e of sherpa) if (!e.status().available) log.warn({ engine: e.id, reason: e.status().reason }, 'speech model unavailable');
  const firstEngines: Record<string, string> = {};
  try {
    const { bindings, problems } = resolveModelBindings(config.dataDir, config.modelsDir, { stt: STT_MODELS, tts: Object.keys(config.product.ttsBindings) });
    for (const p of problems) log.warn(p, 'model binding ignored');
    for (const b of bindings) if (b.kind === 'stt') firstEngines[b.productModel] = `sherpa:${b.model}`;
  } catch (err) {
    log.warn({ err }, 'operator model bindings cannot be read; configured engine chains serve');
  }
  return { sherpa, firstEngines };
}
