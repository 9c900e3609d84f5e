// The process entry for `parla serve`: config -> services -> app -> listen; SIGTERM/SIGINT drain
// in-flight requests, then close the store and the engines.

import { pino } from 'pino';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp, loggerOptions } from './app.js';
import { loadConfig, type Config } from './config.js';
import { createServices, type Services } from './services.js';
import { seedDemoAccount } from './accounts/demo.js';
import { RealtimeServer } from './realtime/server.js';
import type { RealtimeEndpoint } from './routes/v1/realtime-info.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  realtime: RealtimeServer;
  realtimeUrl: string;
  stop(): Promise<void>;
}

const HOLD_SWEEP_MS = 60_000;

export async function startServer(config: Config = loadConfig(), opts: { announce?: (text: string) => void } = {}): Promise<RunningServer> {
  const log = pino(loggerOptions(config.logLevel)) as unknown as FastifyBaseLogger;
  const services = await createServices(config, log);
  let app: FastifyInstance | undefined;
  let realtime: RealtimeServer | undefined;
  try {
    const demo = config.seedDemo ? await seedDemoAccount(services) : null;
    const endpoint: RealtimeEndpoint = { port: null, host: config.realtimeHost };
    app = await buildApp(services, { logger: log, realtime: endpoint });
    await app.listen({ port: config.port, host: config.host });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    realtime = new RealtimeServer(services);
    endpoint.port = await realtime.listen(config.realtimePort, config.realtimeHost);
    const realtimeUrl = `wss://${config.realtimeHost}:${endpoint.port}/api/v1/stt/realtime/stream`;
    if (demo) (opts.announce ?? ((t: string) => process.stdout.write(t)))(demo.announcement(url));

    const metricsServer = config.metricsPort !== null ? await services.metrics.listen(config.metricsPort, config.host) : null;
    const sweep = setInterval(() => {
      services.billing.releaseExpiredHolds().catch((err: unknown) => log.warn({ err }, 'releasing expired holds failed'));
    }, HOLD_SWEEP_MS);
    sweep.unref();

    const running = app;
    const rt = realtime;
    let stopping: Promise<void> | undefined;
    return {
      app: running,
      services,
      url,
      realtime: rt,
      realtimeUrl,
      stop() {
        stopping ??= (async () => {
          clearInterval(sweep);
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
    await realtime?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await services.close();
    throw err;
  }
}

/** Runs until SIGTERM/SIGINT, then drains and exits. */
export async function serveForever(config: Config): Promise<void> {
  const server = await startServer(config);
  server.services.log.info({ url: server.url, realtime: server.realtimeUrl, store: server.services.store.kind, limiter: server.services.limiter.kind }, 'Parla is listening');
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
