// The process entry for `parla serve`: config -> services -> app -> listen; SIGTERM/SIGINT drain
// in-flight requests, then close the store and the engines.

import { pino } from 'pino';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp, loggerOptions } from './app.js';
import { loadConfig, type Config } from './config.js';
import { createServices, type Services } from './services.js';
import { seedDemoAccount } from './accounts/demo.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  stop(): Promise<void>;
}

const HOLD_SWEEP_MS = 60_000;

export async function startServer(config: Config = loadConfig(), opts: { announce?: (text: string) => void } = {}): Promise<RunningServer> {
  const log = pino(loggerOptions(config.logLevel)) as unknown as FastifyBaseLogger;
  const services = await createServices(config, log);
  let app: FastifyInstance | undefined;
  try {
    const demo = config.seedDemo ? await seedDemoAccount(services) : null;
    app = await buildApp(services, { logger: log });
    await app.listen({ port: config.port, host: config.host });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    if (demo) (opts.announce ?? ((t: string) => process.stdout.write(t)))(demo.announcement(url));

    const sweep = setInterval(() => {
      services.billing.releaseExpiredHolds().catch((err: unknown) => log.warn({ err }, 'releasing expired holds failed'));
    }, HOLD_SWEEP_MS);
    sweep.unref();

    const running = app;
    let stopping: Promise<void> | undefined;
    return {
      app: running,
      services,
      url,
      stop() {
        stopping ??= (async () => {
          clearInterval(sweep);
          await running.close();
          await services.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await services.close();
    throw err;
  }
}

/** Runs until SIGTERM/SIGINT, then drains and exits. */
export async function serveForever(config: Config): Promise<void> {
  const server = await startServer(config);
  server.services.log.info({ url: server.url, store: server.services.store.kind, limiter: server.services.limiter.kind }, 'Parla is listening');
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
