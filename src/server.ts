// The process entry for `parla serve`: config -> services -> app -> listen; SIGTERM/SIGINT drain
// in-flight requests, then close the store and the engines.

import { pino } from 'pino';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp, loggerOptions } from './app.js';
import { loadConfig, type Config } from './config.js';
import { createServices, type Services } from './services.js';
import { seedDemoAccount } from './accounts/demo.js';
import { RealtimeServer } from './realtime/server.js';
import { WyomingServer } from './wyoming/server.js';
import { wyomingKey } from './accounts/wyoming-key.js';
import type { RealtimeEndpoint } from './routes/v1/realtime-info.js';
import { EspeakEngine, warmUpEspeak } from './engines/espeak/espeak-engine.js';
import { startJobWork } from './background-jobs.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  realtime: RealtimeServer;
  realtimeUrl: string;
  /** The Wyoming server and its port, when WYOMING_PORT is set. */
  wyoming: { server: WyomingServer; port: number } | null;
  stop(): Promise<void>;
}

const HOLD_SWEEP_MS = 60_000;

export async function startServer(
  config: Config = loadConfig(),
  opts: { announce?: (text: string) => void; warmUpEngines?: boolean } = {},
): Promise<RunningServer> {
  const log = pino(loggerOptions(config.logLevel)) as unknown as FastifyBaseLogger;
  const services = await createServices(config, log);
  let app: FastifyInstance | undefined;
  let realtime: RealtimeServer | undefined;
  let wyoming: WyomingServer | undefined;
  try {
    if (opts.warmUpEngines) await warmUpTts(services, log);
    const demo = config.seedDemo ? await seedDemoAccount(services.store, services.config) : null;
    const endpoint: RealtimeEndpoint = { port: null, host: config.realtimeHost };
    app = await buildApp(services, { logger: log, realtime: endpoint });
    await app.listen({ port: config.port, host: config.host });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    realtime = new RealtimeServer(services);
    endpoint.port = await realtime.listen(config.realtimePort, config.realtimeHost);
    const realtimeUrl = `wss://${config.realtimeHost}:${endpoint.port}/api/v1/stt/realtime/stream`;
    let wyomingPort: number | null = null;
    if (config.wyoming) {
      const apiKey =
        config.wyoming.apiKey ?? (await wyomingKey({ config, store: services.store, log, demoAccountId: demo?.accountId ?? null }));
      wyoming = new WyomingServer(services, { apiKey });
      // A key that does not authenticate is logged; the server still listens and answers error events.
      await wyoming.checkKey();
      wyomingPort = await wyoming.listen(config.wyoming.port, config.wyoming.host);
    }
    if (demo) (opts.announce ?? ((t: string) => process.stdout.write(t)))(demo.announcement(url));

    const metricsServer = config.metricsPort !== null ? await services.metrics.listen(config.metricsPort, config.host) : null;
    const sweep = setInterval(() => {
      services.billing.releaseExpiredHolds().catch((err: unknown) => log.warn({ err }, 'releasing expired holds failed'));
    }, HOLD_SWEEP_MS);
    sweep.unref();
    // Jobs: this node's runner, webhook dispatcher and retention timer (docs/jobs.md).
    const jobWork = startJobWork(services);

    const running = app;
    const rt = realtime;
    const wy = wyoming;
    let stopping: Promise<void> | undefined;
    return {
      app: running,
      services,
      url,
      realtime: rt,
      realtimeUrl,
      wyoming: wy && wyomingPort !== null ? { server: wy, port: wyomingPort } : null,
      stop() {
        stopping ??= (async () => {
          clearInterval(sweep);
          await jobWork.stop();
          await wy?.close();
          await rt.close();
          metricsServer?.close();
          // Keep-alive connections become idle only when their last response ends; close them as
          // they do, or the server would wait for the clients' keep-alive timeouts.
          const reap = setInterval(() => running.server.closeIdleConnections(), 100);
          try {
            await running.close();
          } finally {
            clearInterval(reap);
          }
          await services.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await wyoming?.close().catch(() => undefined);
    await realtime?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await services.close();
    throw err;
  }
}

/**
 * eSpeak in PARLA_ESPEAK_WARM_WORKERS workers (none by default, decision #98) before the first
 * request; a failure only costs the first requests time. Not when no TTS chain names eSpeak: an
 * operator who binds it out (docs/licensing.md) never loads it.
 */
async function warmUpTts(services: Services, log: FastifyBaseLogger): Promise<void> {
  const espeak = services.registry.ttsEngine('espeak');
  if (!(espeak instanceof EspeakEngine) || !espeak.status().available) return;
  const bound = Object.values(services.config.product.ttsBindings).flat();
  if (!bound.includes('espeak') && !bound.includes('studio-espeak')) return;
  if (services.config.espeakWarmWorkers === 0) return;
  const started = performance.now();
  try {
    await warmUpEspeak(espeak, services.config.espeakWarmWorkers);
    log.debug({ ms: Math.round(performance.now() - started), workers: services.config.espeakWarmWorkers }, 'eSpeak ready');
  } catch (err) {
    log.warn({ err }, 'eSpeak warm-up failed');
  }
}

/** Runs until SIGTERM/SIGINT, then drains and exits. */
export async function serveForever(config: Config): Promise<void> {
  const server = await startServer(config, { warmUpEngines: true });
  server.services.log.info(
    {
      url: server.url,
      realtime: server.realtimeUrl,
      store: server.services.store.kind,
      limiter: server.services.limiter.kind,
      wyoming: server.wyoming?.port ?? null,
    },
    'Parla is listening',
  );
  const shutdown = (signal: string) => {
    server.services.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        server.services.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
