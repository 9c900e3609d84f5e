// Prometheus metrics (prom-client): requests by route and status, latency, engine queue depth and
// wait, synthesis and recognition real-time factors, credits debited by model, active real-time
// streams. Served at /metrics behind an operator bearer token (METRICS_TOKEN) and/or on a port of
// its own (METRICS_PORT); with neither, metrics are collected but not exposed.

import http from 'node:http';
import fp from 'fastify-plugin';
import client from 'prom-client';
import type { WorkerPool } from '../workers/pool.js';
import { appendRouteHook } from './route-hooks.js';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface CountSeries {
  method: string;
  route: string;
  status: string;
  count: number;
  latency: LatencySeries;
}

interface LatencySeries {
  method: string;
  route: string;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  buckets: Float64Array;
}

/**
 * HTTP request counts and latencies kept as plain numbers per method, route and status, and handed
 * to prom-client only when the metrics are read. prom-client's own inc() and observe() build,
 * validate and hash a label object on every call, ~0.9 us per request for the two together (about
 * 4% of the CPU of a cached API request, docs/benchmarks.md); here a request costs a map lookup
 * and a few additions. The key space is bounded: the routes x methods x statuses the app answers.
 */
class RequestSeries {
  private readonly byStatus = new Map<string, CountSeries>();
  private readonly byRoute = new Map<string, LatencySeries>();

  constructor(readonly bounds: number[]) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let c = this.byStatus.get(key);
    if (!c) {
      const routeKey = `${method} ${route}`;
      let latency = this.byRoute.get(routeKey);
      if (!latency) {
        latency = { method, route, count: 0, sum: 0, buckets: new Float64Array(this.bounds.length + 1) };
        this.byRoute.set(routeKey, latency);
      }
      c = { method, route, status: String(status), count: 0, latency };
      this.byStatus.set(key, c);
    }
    c.count++;
    const l = c.latency;
    l.count++;
    l.sum += seconds;
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]!) b++;
    l.buckets[b]!++;
  }

  counts(): Iterable<CountSeries> {
    return this.byStatus.values();
  }

  latencies(): Iterable<LatencySeries> {
    return this.byRoute.values();
  }

  clear(): void {
    this.byStatus.clear();
    this.byRoute.clear();
  }
}

/**
 * A Prometheus histogram read from RequestSeries, in the shape prom-client's registry prints
 * (cumulative _bucket series with le, then _sum and _count), as its own Histogram would print it.
 */
class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly series: RequestSeries,
  ) {}

  get(): {
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }>;
  } {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const l of this.series.latencies()) {
      let cumulative = 0;
      this.series.bounds.forEach((le, i) => {
        cumulative += l.buckets[i]!;
        values.push({ labels: { le, method: l.method, route: l.route }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', method: l.method, route: l.route }, value: l.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { method: l.method, route: l.route }, value: l.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { method: l.method, route: l.route }, value: l.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Registry.resetMetrics(): the request counter reads the same series, so it restarts too. */
  reset(): void {
    this.series.clear();
  }
}

export class Metrics {
  readonly registry = new client.Registry();
  private readonly http = new RequestSeries(LATENCY_BUCKETS);
  readonly credits = new client.Counter({
    name: 'parla_credits_debited_total',
    help: 'Credits debited by model',
    labelNames: ['model', 'mode'],
    registers: [this.registry],
  });
  readonly rtf = new client.Histogram({
    name: 'parla_engine_real_time_factor',
    help: 'Seconds of work per second of audio (below 1: faster than real time), by task and engine',
    labelNames: ['task', 'engine'],
    buckets: [0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 1, 2],
    registers: [this.registry],
  });
  readonly sttRecordings = new client.Counter({
    name: 'parla_stt_recordings_total',
    help: 'Batch recordings recognized, by path: one_pass (one decoder) or pieces (a long recording cut at pauses, pieces in parallel)',
    labelNames: ['path'],
    registers: [this.registry],
  });
  readonly sttPieces = new client.Counter({
    name: 'parla_stt_pieces_total',
    help: 'Pieces recognized for long recordings (the pieces path)',
    registers: [this.registry],
  });
  readonly sttCutBy = new client.Counter({
    name: 'parla_stt_cut_recordings_total',
    help: 'Long recordings cut into pieces, by the detector that found the pauses: silero, or webrtc (the fallback)',
    labelNames: ['vad'],
    registers: [this.registry],
  });
  readonly sttDiarized = new client.Counter({
    name: 'parla_stt_diarized_total',
    help: 'Recordings diarized, by who told the speakers apart (sherpa-onnx: the installed speaker models; builtin) and how (segmentation: pyannote frames; embeddings: one per span; features: spectral features)',
    labelNames: ['by', 'method'],
    registers: [this.registry],
  });
  readonly realtimeStreams = new client.Gauge({
    name: 'parla_realtime_streams_active',
    help: 'Open real-time streams',
    registers: [this.registry],
  });
  readonly wyomingEvents = new client.Counter({
    name: 'parla_wyoming_events_total',
    help: 'Wyoming events received, by type (unknown types as "other") and outcome (ok, error)',
    labelNames: ['type', 'outcome'],
    registers: [this.registry],
  });
  readonly wyomingConnections = new client.Gauge({
    name: 'parla_wyoming_connections_active',
    help: 'Open Wyoming connections',
    registers: [this.registry],
  });
  readonly jobDuration = new client.Histogram({
    name: 'parla_job_duration_seconds',
    help: 'Transcription jobs from their first start to their end, by final status',
    labelNames: ['status'],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [this.registry],
  });
  readonly webhookAttempts = new client.Counter({
    name: 'parla_webhook_attempts_total',
    help: 'Job webhook attempts by outcome (delivered: 2xx; http_error: another status; network_error: no answer or a refused URL)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor(pool: WorkerPool) {
    const stats = () => pool.stats();
    new client.Gauge({
      name: 'parla_engine_queue_depth',
      help: 'Engine tasks waiting for a worker',
      registers: [this.registry],
      collect() {
        this.set(stats().queued);
      },
    });
    new client.Gauge({
      name: 'parla_engine_queue_wait_ms',
      help: 'Mean time engine tasks waited for a worker, ms',
      registers: [this.registry],
      collect() {
        this.set(stats().waitMeanMs);
      },
    });
    new client.Gauge({
      name: 'parla_engine_workers',
      help: 'Engine worker threads',
      registers: [this.registry],
      collect() {
        this.set(stats().threads);
      },
    });
    new client.Gauge({
      name: 'parla_engine_tasks_running',
      help: 'Engine tasks running on a worker now',
      registers: [this.registry],
      collect() {
        this.set(stats().running);
      },
    });
    client.collectDefaultMetrics({ register: this.registry, prefix: 'parla_' });
    const http = this.http;
    new client.Counter({
      name: 'parla_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of http.counts()) this.inc({ method: c.method, route: c.route, status: c.status }, c.count);
      },
    });
    this.registry.registerMetric(
      new LatencyHistogram('parla_http_request_duration_seconds', 'HTTP request latency', http) as unknown as client.Metric,
    );
  }

  /** Gauges of the job queue (docs/jobs.md), read from the queue when the metrics are read. */
  watchJobQueue(depth: () => Promise<{ queued: number; running: number; webhooksPending: number }>): void {
    const gauge = new client.Gauge({
      name: 'parla_jobs',
      help: 'Transcription jobs queued and running, and webhook deliveries pending, across all nodes',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const d = await depth();
        this.set({ state: 'queued' }, d.queued);
        this.set({ state: 'running' }, d.running);
        this.set({ state: 'webhooks_pending' }, d.webhooksPending);
      },
    });
    void gauge;
  }

  /** A job ended (completed, failed or canceled) `seconds` after it first started. */
  observeJob(status: string, seconds: number): void {
    if (seconds >= 0) this.jobDuration.labels(status).observe(seconds);
  }

  observeWebhookAttempt(a: { ok: boolean; status: number | null }): void {
    this.webhookAttempts.labels(a.ok ? 'delivered' : a.status === null ? 'network_error' : 'http_error').inc();
  }

  /** One answered HTTP request. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.observe(method, route, status, seconds);
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

  /** A batch recording recognized in `pieces` pieces (1: in one pass). */
  observeRecordingPieces(pieces: number, vad?: 'silero' | 'webrtc'): void {
    if (vad) this.sttCutBy.labels(vad).inc();
    if (pieces > 1) {
      this.sttRecordings.labels('pieces').inc();
      this.sttPieces.inc(pieces);
    } else this.sttRecordings.labels('one_pass').inc();
  }

  /** A recording diarized by the installed speaker models (sherpa-onnx) or the built-in clustering. */
  observeDiarization(by: 'sherpa-onnx' | 'builtin', method: 'segmentation' | 'embeddings' | 'features'): void {
    this.sttDiarized.labels(by, method).inc();
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
        (err: unknown) =>
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${(err as Error).message}\n`),
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

export const metricsPlugin = fp(
  async (app, opts: { metrics: Metrics }) => {
    const { metrics } = opts;
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
  },
  { name: 'parla-metrics', fastify: '5.x' },
);
