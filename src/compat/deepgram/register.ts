// The Deepgram dialect (docs/compatibility.md, "Deepgram"): REST routes under /v1 on the API port
// and WebSockets (/v1/listen, /v1/speak) on both the API port and the real-time TLS port. Like the
// OpenAI dialect, an edge only: parse Deepgram's request, map its models and voices, call the same
// services as the native routes, render Deepgram's answer and its errors (errors.ts).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { deepgramSpeakRoutes } from './speak-routes.js';
import { speakSocketHandler } from './speak-socket.js';

export async function registerDeepgram(app: FastifyInstance, services: Services): Promise<void> {
  // Each part registers itself here, one line each:
  await app.register(deepgramSpeakRoutes, { prefix: '/v1', tts: services.tts, mapping: services.config.product.deepgram });
  services.wsRoutes.add('/v1/speak', speakSocketHandler(services));
  // Upgraded sockets are no longer the HTTP server's: end them before it closes, or close waits.
  app.addHook('preClose', () => services.wsRoutes.closeAll());
}
