// The Deepgram dialect (docs/compatibility.md, "Deepgram"): REST routes under /v1 on the API port
// and WebSockets (/v1/listen, /v1/speak) on both the API port and the real-time TLS port. Like the
// OpenAI dialect, an edge only: parse Deepgram's request, map its models and voices, call the same
// services as the native routes, render Deepgram's answer and its errors (errors.ts).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { deepgramListenRoutes } from './listen-routes.js';
import { registerListenLive } from './listen-live.js';
import { deepgramSpeakRoutes } from './speak-routes.js';
import { speakSocketHandler } from './speak-socket.js';

export async function registerDeepgram(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(deepgramListenRoutes, {
    stt: services.stt,
    jobs: services.jobs.service,
    mapping: services.config.product.deepgram,
    fetchPolicy: { allowPrivate: services.config.jobs.fetchAllowPrivate, allowHosts: services.config.jobs.fetchAllowHosts },
    prefix: '/v1',
  });
  registerListenLive(services);
  await app.register(deepgramSpeakRoutes, {
    prefix: '/v1',
    tts: services.tts,
    encoders: services.encoders,
    mapping: services.config.product.deepgram,
    plans: services.config.product.plans,
  });
  const speak = speakSocketHandler(services);
  services.wsRoutes.add('/v1/speak', speak, () => speak.closeAll());
}
