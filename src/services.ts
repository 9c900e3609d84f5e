// The long-lived parts of one Parla node, built once at start and handed to buildApp() and the
// real-time server. Tests build the same object (test/helpers/) against real databases.

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Store } from './storage/store.js';
import type { Limiter } from './limits/limiter.js';
import type { WorkerPool } from './workers/pool.js';
import { createWorkerPool } from './tasks/table.js';
import { Billing } from './accounts/billing.js';
import { KeyAuthenticator } from './accounts/authenticate.js';
import { openStore } from './storage/open-store.js';
import { openLimiter } from './limits/open-limiter.js';
import { createTtsEngines } from './engines/create.js';
import { ModelRegistry, STT_MODELS } from './registry/model-registry.js';
import { Catalog } from './catalog/catalog.js';
import { PocketSphinxEngine } from './engines/pocketsphinx/pocketsphinx-engine.js';
import { warmupUtterance } from './engines/pocketsphinx/warmup.js';
import type { SttEngine } from './engines/engine.js';
import { closeReadings } from './tts/readings/readings.js';
import { startHeapTrimmer } from './engines/pocketsphinx/heap-trim.js';
import { closeSileroThread } from './audio/silero-thread.js';
import { ModelLifecycle } from './engines/model-lifecycle.js';
import { createSherpaSttEngines, type SherpaSttEngine } from './engines/sherpa/sherpa-stt-engine.js';
import { useTurnModel } from './engines/smart-turn/turn-model.js';
import { createSpeakerDiarizer } from './engines/sherpa/speaker-models.js';
import { resolveModelBindings } from './models/bindings.js';
import { neuralTtsChains } from './registry/neural-voices.js';
import { Metrics } from './http/metrics.js';
import { WsRoutes } from './edge/ws-routes.js';
import { TtsService } from './tts/service.js';
import { SttService } from './stt/service.js';
import { FfmpegEncoders } from './audio/ffmpeg-encoder.js';
import { sharedSpawner } from './process/spawner.js';
import { DecoderProcesses } from './audio/decoder/host.js';
import { EventEmitter } from 'node:events';
import { openJobQueue } from './jobs/open-queue.js';
import type { JobQueue } from './jobs/queue.js';
import { JobService } from './jobs/service.js';

export interface Services {
  config: Config;
  log: FastifyBaseLogger;
  store: Store;
  limiter: Limiter;
  pool: WorkerPool;
  billing: Billing;
  authenticator: KeyAuthenticator;
  /** The product models (TTS and STT), the engines bound to them, their prices. */
  registry: ModelRegistry;
  /** The voice/language catalogue built on the TTS engines. */
  catalog: Catalog;
  /** Text-to-speech: generate and stream (src/tts/service.ts). */
  tts: TtsService;
  /** Speech-to-text: transcribe, and admit real-time streams (src/stt/service.ts). */
  stt: SttService;
  /** Every loaded model (recognizers, voices, PocketSphinx's decoders): load on use, idle TTL, LRU eviction. */
  lifecycle: ModelLifecycle;
  metrics: Metrics;
  /** WebSocket endpoints beyond the native stream (the Deepgram dialect), served on both ports. */
  wsRoutes: WsRoutes;
  /** ffmpeg encoders for the formats no library here writes (the OpenAI and Deepgram dialects' opus and aac), bounded like the pool's threads. */
  encoders: FfmpegEncoders;
  /**
   * Asynchronous transcription jobs (docs/jobs.md): the queue (SQLite beside the store, or
   * PostgreSQL), 'enqueued' events that wake this node's runner (src/background-jobs.ts), and the
   * service every edge makes, reads and cancels jobs through (src/jobs/service.ts).
   */
  jobs: { queue: JobQueue; events: EventEmitter; service: JobService };
  /** Closes everything this object opened, in reverse order. */
  close(): Promise<void>;
}

export interface CreateServicesOptions {
  /**
   * STT engines besides PocketSphinx (installed models), registered in the model registry at
   * construction: config.product.sttBindings names them in a model's chain.
   */
  extraSttEngines?: SttEngine[];
  /** The ffmpeg the speech encoders run (default: `ffmpeg` on PATH); a test names a missing one to see the refusal. */
  ffmpegBinary?: string;
}

export async function createServices(config: Config, log: FastifyBaseLogger, opts: CreateServicesOptions = {}): Promise<Services> {
  const closers: Array<() => Promise<void>> = [];
  try {
    const store = await openStore(config);
    closers.push(() => store.close());
    await store.migrate();
    const jobQueue = await openJobQueue(config);
    closers.push(() => jobQueue.close());
    await jobQueue.migrate();
    const limiter = await openLimiter(config, log);
    closers.push(() => limiter.close());
    const pool = createWorkerPool({ threads: config.workerThreads, maxQueue: config.engineQueueMax });
    closers.push(() => pool.close());
    // One helper process starts every program of the node (Flite, ffmpeg, the pronouncer): the
    // service never forks itself. Shared with the parts that have no Services at hand (spawner.ts).
    const spawner = sharedSpawner();
    // Encoder processes are CPU work beside the pool's: as many at once as it has threads.
    // Uploads are decoded in processes of their own, started by the helper (decision #42).
    const decoder = new DecoderProcesses(spawner, {
      processes: config.decode.processes,
      maxQueue: config.engineQueueMax,
      ...(config.decode.accountQueue !== null ? { accountQueue: config.decode.accountQueue } : {}),
      memoryMb: config.decode.memoryMb,
      heapMb: config.decode.heapMb,
      timeoutMs: config.decode.timeoutSeconds * 1000,
    });
    closers.push(() => decoder.close());
    const encoders = new FfmpegEncoders(spawner, { concurrent: config.workerThreads, queue: config.engineQueueMax }, opts.ffmpegBinary);
    // The Japanese/Korean readings thread starts with the first such text; it stops with the node.
    closers.push(() => closeReadings());
    // One lifecycle for every loaded model (voices, recognizers, PocketSphinx's decoders): the
    // memory budget counts them all.
    const lifecycle = new ModelLifecycle({
      ttlMs: config.models.ttlSeconds * 1000,
      memoryBudgetMB: config.models.memoryMB,
      loadWaitMs: config.models.loadWaitSeconds * 1000,
      log,
    });
    closers.push(() => lifecycle.close());
    // Free memory of native code goes back to the system after bursts of work (decision #79).
    const trimmer = startHeapTrimmer(config.heapTrimSeconds * 1000);
    closers.push(async () => trimmer.stop());
    // The live streams' Silero thread ends from inside (silero-thread.ts: never terminated in native code).
    closers.push(() => closeSileroThread());
    const ttsEngines = createTtsEngines(config, pool, { espeakExtraLanguages: Catalog.espeakLanguageMap(), lifecycle, spawner, log });
    // Engines with helpers of their own (Flite's spawner process) stop with the node.
    closers.push(async () => {
      for (const e of ttsEngines) e.close?.();
    });
    for (const e of ttsEngines) {
      const st = e.status();
      if (!st.available) log.warn({ engine: e.id, reason: st.reason }, 'TTS engine unavailable');
    }
    const pocketsphinx = new PocketSphinxEngine({
      decodersPerProfile: config.sttDecoders,
      warmup: warmupUtterance(),
      preload: config.sttPreload,
      lifecycle,
      decoderWaitMs: config.sttDecoderWaitSeconds * 1000,
    });
    if (!pocketsphinx.status().available)
      log.warn({ reason: pocketsphinx.status().reason }, 'PocketSphinx unavailable: speech-to-text is disabled');
    else if (config.sttPreload) await pocketsphinx.whenReady();
    const { sherpa, sttFirst, ttsBound } = sherpaStt(config, lifecycle, log);
    const ttsFirst = neuralTtsChains(ttsEngines, ttsBound, Object.keys(config.product.ttsBindings));
    const registry = new ModelRegistry(config, {
      tts: ttsEngines,
      stt: [...sherpa, pocketsphinx, ...(opts.extraSttEngines ?? [])],
      sttFirst,
      ttsFirst,
    });
    const metrics = new Metrics(pool);
    metrics.watchJobQueue(() => jobQueue.depth());
    const billing = new Billing(store, config, (model, mode, credits) => metrics.credits.labels(model, mode).inc(credits));
    const catalog = new Catalog(config, registry);
    const stt = new SttService({
      config,
      registry,
      pool,
      decoder,
      billing,
      limiter,
      onRecognition: (a, w, e) => metrics.observeRecognition(a, w, e),
      onPieces: (n, vad) => metrics.observeRecordingPieces(n, vad),
      speakers: createSpeakerDiarizer(config.modelsDir, config.diarization, lifecycle, log),
      onDiarization: (by, method) => metrics.observeDiarization(by, method),
    });
    const jobEvents = new EventEmitter();
    const services: Services = {
      config,
      log,
      store,
      limiter,
      pool,
      billing,
      authenticator: new KeyAuthenticator(store, config.keySecret),
      registry,
      catalog,
      tts: new TtsService({
        config,
        catalog,
        models: registry,
        pool,
        billing,
        onSynthesis: (a, w, e) => metrics.observeSynthesis(a, w, e),
      }),
      stt,
      lifecycle,
      metrics,
      wsRoutes: new WsRoutes(),
      encoders,
      jobs: {
        queue: jobQueue,
        events: jobEvents,
        service: new JobService({ queue: jobQueue, events: jobEvents, stt, registry, billing, config }),
      },
      async close() {
        for (const c of closers.reverse()) await c().catch((err: unknown) => log.warn({ err }, 'close failed'));
      },
    };
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
function sherpaStt(
  config: Config,
  lifecycle: ModelLifecycle,
  log: FastifyBaseLogger,
): { sherpa: SherpaSttEngine[]; sttFirst: Record<string, string>; ttsBound: Record<string, string> } {
  useTurnModel(config.modelsDir, config.turnModel);
  const sherpa = createSherpaSttEngines(config.modelsDir, lifecycle, { maxPending: Math.max(1, config.engineQueueMax) }, log);
  for (const e of sherpa) if (!e.status().available) log.warn({ engine: e.id, reason: e.status().reason }, 'speech model unavailable');
  const sttFirst: Record<string, string> = {};
  const ttsBound: Record<string, string> = {};
  try {
    const { bindings, problems } = resolveModelBindings(config.dataDir, config.modelsDir, {
      stt: STT_MODELS,
      tts: Object.keys(config.product.ttsBindings),
    });
    for (const p of problems) log.warn(p, 'model binding ignored');
    for (const b of bindings) (b.kind === 'stt' ? sttFirst : ttsBound)[b.productModel] = `sherpa:${b.model}`;
  } catch (err) {
    log.warn({ err }, 'operator model bindings cannot be read; configured engine chains serve');
  }
  return { sherpa, sttFirst, ttsBound };
}
