// GET /api/v1/stt/realtime/info: how to connect to the real-time WebSocket and the caller's limits.

import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { errorResponses } from '../../http/schemas.js';
import { engineFamily } from '../../registry/model-registry.js';
import { sttServing } from '../../registry/serving.js';
import { REALTIME_DEFAULTS } from '../../realtime/params.js';
import { REALTIME_ENCODINGS } from '../../stt/live/params.js';
import { opusSupported } from '../../stt/live/opus-decoder.js';

// The 200 body: `models` in full (what serves each model now); the rest kept open here (documented
// in docs/realtime.md), so the schema documents without dropping a field.
const RealtimeInfo = Type.Object(
  {
    url: Type.String(),
    port: Type.Integer(),
    models: Type.Array(
      Type.Object({
        id: Type.String(),
        provider: Type.String(),
        languages: Type.Array(Type.String()),
        credits_per_second: Type.Number(),
        engine: Type.Union([Type.String(), Type.Null()], {
          description:
            'Engine serving the model now (first available of its chain), e.g. "pocketsphinx" or "sherpa:<model>"; null when none is.',
        }),
        loaded: Type.Boolean({ description: "Whether that engine's model is loaded now; if not, the first stream waits for it to load." }),
      }),
    ),
  },
  { additionalProperties: true },
);

export interface RealtimeEndpoint {
  /** Port the WebSocket listens on, once started. */
  port: number | null;
  host: string;
}

export const realtimeInfoRoutes: FastifyPluginAsync<{ services: Services; endpoint: RealtimeEndpoint }> = async (
  app,
  { services, endpoint },
) => {
  app.get(
    '/stt/realtime/info',
    {
      schema: {
        tags: ['stt'],
        summary: 'Real-time streaming: connection, capabilities and your limits',
        description:
          'models[] gives each model\'s engine serving it now (e.g. "pocketsphinx", "sherpa:<model>"; null when none) and whether its model is loaded (else the first stream waits for it to load).',
        security: [{ apiKey: [] }],
        response: { 200: RealtimeInfo, ...errorResponses() },
      },
    },
    async function getRealtimeInfo(request) {
      const { account } = request.auth;
      const plan = services.config.product.plans[account.plan];
      const [balance, inUse, opus] = await Promise.all([
        services.billing.balance(request.auth),
        services.limiter.slotsInUse(account.id),
        opusSupported(),
      ]);
      const port = endpoint.port ?? services.config.realtimePort;
      const host = request.hostname.replace(/:\d+$/, '') || endpoint.host;
      return {
        url: `wss://${host}:${port}/api/v1/stt/realtime/stream`,
        port,
        authentication: 'api_key query parameter',
        protocol: 'docs/realtime.md',
        // engine / loaded: what serves the model now (src/registry/serving.ts); a model not loaded
        // loads when a stream opens (a first stream may wait for it, PARLA_MODEL_LOAD_WAIT).
        models: sttServing(services.registry, services.lifecycle).map(({ model: id, engine, loaded }) => ({
          id,
          provider: engineFamily(id),
          languages: services.registry.sttLanguages(id),
          credits_per_second: services.registry.sttRate(id),
          engine,
          loaded,
        })),
        encodings: REALTIME_ENCODINGS.filter((e) => e !== 'opus' || opus),
        containers: opus ? { opus: ['ogg', 'webm'] } : {},
        sample_rates: { min: 8000, max: 48000, recognition: 16000 },
        parameters: { ...REALTIME_DEFAULTS, language: 'detected', keywords: '' },
        messages: {
          client: ['binary audio', 'KeepAlive', 'Finalize', 'CloseStream'],
          server: ['Metadata', 'SpeechStarted', 'Results', 'UtteranceEnd', 'Error', 'Summary'],
        },
        limits: {
          concurrent_streams: plan.concurrent,
          // The slots of the caller's other requests and streams: this request holds one
          // itself while it runs, which an idle account must not see as in use.
          concurrent_in_use: Math.max(0, inUse - (request.releaseSlot ? 1 : 0)),
          credits_remaining: balance,
          max_session_seconds: services.config.realtimeMaxSessionSeconds,
          idle_timeout_seconds: services.config.realtimeIdleTimeoutSeconds,
        },
      };
    },
  );
};
