// Prometheus metrics (prom-client): requests by route and status, latency, engine queue depth and
// wait, synthesis and recognition real-time factors, credits debited by model, active real-time
// streams. Served at /metrics behind an operator bearer token (METRICS_TOKEN) and/or on a port of
// its own (METRICS_PORT); with neither, metrics are collected but not exposed.

import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import client from 'prom-client';
import type { EnginePool } from '../engines/pool.js';
import { ApiError } from '../errors.js';
import { appendRouteHook } from './route-hooks.js';

export class Metrics {
  readonly registry = new client.Registry();
  readonly requests = new client.Counter({ name: 'parla_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  readonly latency = new client.Histogram({ name: 'parla_http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method', 'route'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry] });
  readonly credits = new client.Counter({ name: 'parla_credits_debited_total', help: 'Credits debited by model', labelNames: ['model', 'mode'], registers: [this.registry] });
  readonly rtf = new client.Histogram({ name: 'parla_engine_real_time_factor', help: 'Seconds of work per second of audio (below 1: faster than real time), by task and engine', labelNames: ['task', 'engine'], buckets: [0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 1, 2], registers: [this.registry] });
  readonly realtimeStreams = new client.Gauge({ name: 'parla_realtime_streams_active', help: 'Open real-time streams', registers: [this.registry] });

  constructor(pool: EnginePool) {
    const stats = () => pool.stats();
    new client.Gauge({ name: 'parla_engine_queue_depth', help: 'Engine tasks waiting for a worker', registers: [this.registry], collect() { this.set(stats().queued); } });
    new client.Gauge({ name: 'parla_engine_queue_wait_ms', help: 'Mean time engine tasks waited for a worker, ms', registers: [this.registry], collect() { this.set(stats().waitMeanMs); } });
    new client.Gauge({ name: 'parla_engine_workers', help: 'Engine worker threads', registers: [this.registry], collect() { this.set(stats().threads); } });
    new client.Gauge({ name: 'parla_engine_tasks_running', help: 'Engine tasks running on a worker now', registers: [this.registry], collect() { this.set(stats().running); } });
    client.collectDefaultMetrics({ register: this.registry, prefix: 'parla_' });
  }

  /**
   * Label children of the request metrics, by method, route and status, made once: a child skips
   * building and checking the label object from arguments on each observation (prom-client still
   * hashes it). The key space is bounded (the routes x methods x statuses the app answers).
   */
  private readonly requestChildren = new Map<string, { count: ReturnType<client.Counter["labels"]>; latency: ReturnType<client.Histogram["labels"]> }>();

  /** One answered HTTP request. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let c = this.requestChildren.get(key);
    if (!c) {
      c = { count: this.requests.labels(method, route, String(status)), latency: this.latency.labels(method, route) };
      this.requestChildren.set(key, c);
    }
    c.count.inc();
    c.latency.observe(seconds);
  }

  /** Records work that produced or consumed `audioSeconds` of audio in `workSeconds`. */
  observeRtf(task: 'synthesis' | 'recognition', audioSeconds: number, workSeconds: number, engine = 'unknown'): void {
    if (audioSeconds > 0 && workSeconds >= 0) this.rtf.labels(task, engine).observe(workSeconds / audioSeconds);
  }

  /** `audioSeconds` of speech synthesized by `engine` (its id) in `workSeconds`. */
  observeSynthesis(audioSeconds: number, workSeconds: number, engine: string): void {
    this.observeRtf('synthesis', audioSeconds, workSeconds, engine);
  }

  /** `audioSeconds` of audio recognized by `engine` (its id) in `workSeconds`. */
  observeRecognition(audioSeconds: number, workSeconds: number, engine: string): void {
    this.observeRtf('recognition', audioSeconds, workSeconds, engine);
  }

  /** A separate listener for metrics only (METRICS_PORT): GET /metrics, nothing else. */
  async listen(port: number, host: string): Promise<http.Server> {
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Metrics are at GET /metrics\n');
        return;
      }
      this.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${(err as Error).message}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server;
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export const metricsPlugin = fp(
  async (app, opts: { metrics: Metrics; token: string | null }) => {
    const { metrics, token } = opts;
    // Each route observes its own answers under its own URL pattern (read once, here: Fastify builds
    // request.routeOptions anew on every read); URLs no route matched, under "unmatched".
    // Callback hooks, not async ones: no promise per request for two counters.
    app.addHook('onRoute', (route) => {
      const url = route.url;
      appendRouteHook(route, 'onResponse', (request, reply, done) => {
        metrics.observeRequest(request.method, url, reply.statusCode, reply.elapsedTime / 1000);
        done();
      });
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) metrics.observeRequest(request.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    if (token) {
      app.get('/metrics', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
        if (!tokenMatches(request.headers.authorization, token)) throw new ApiError('AUTH_INVALID_API_KEY', { message: 'The metrics endpoint needs the operator token: Authorization: Bearer <METRICS_TOKEN>.' });
        return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
      });
    }
  },
  { name: 'parla-metrics', fastify: '5.x' },
);
