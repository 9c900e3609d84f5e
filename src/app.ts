// buildApp(services): the whole HTTP API as a Fastify instance. The process entry (server.ts) and
// the tests build it the same way.

import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import cookie from '@fastify/cookie';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Services } from './services.js';
import { requestIdPlugin } from './http/request-id.js';
import { newRequestId } from './edge/request-id.js';
import { lazyChildLoggerFactory } from './http/lazy-child-logger.js';
import { errorHandlerPlugin, frameworkApiError, frameworkErrors } from './http/error-handler.js';
import { sendDialectError, underV1 } from './compat/dialect.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { drainPlugin } from './http/drain.js';
import { clientErrorHandler, refuseConnect, refuseUnknownExpectation } from './http/raw-errors.js';
import { authPlugin } from './http/auth.js';
import { rateLimitPlugin } from './http/rate-limit.js';
import { metricsPlugin } from './http/metrics.js';
import { ErrorBodySchema } from './http/schemas.js';
import { withNullMeansAbsent } from './http/null-means-absent.js';
import { healthRoutes, VERSION } from './routes/health.js';
import { openApiRoute } from './routes/openapi.js';
import { metricsRoute } from './routes/metrics.js';
import { accountRoutes } from './routes/v1/account.js';
import { catalogRoutes } from './routes/v1/catalog.js';
import { languagesAliasRoutes } from './routes/v1/languages.js';
import { ttsRoutes } from './routes/v1/tts.js';
import { ttsTimestampRoutes } from './routes/v1/tts-timestamps.js';
import { sttRoutes } from './routes/v1/stt.js';
import { jobRoutes } from './routes/v1/jobs.js';
import { realtimeInfoRoutes, type RealtimeEndpoint } from './routes/v1/realtime-info.js';
import { openAiRoutes } from './compat/openai/routes.js';
import { serveWsRoutes } from './edge/ws-routes.js';
import { registerDeepgram } from './compat/deepgram/register.js';
import { modelsRoutes } from './compat/models-routes.js';
import { authTokenRoutes } from './routes/v1/auth-tokens.js';
import { clientSecretRoutes } from './compat/openai/realtime/client-secrets.js';
import { registerOpenAiRealtime } from './compat/openai/realtime/socket-route.js';
import { deepgramGrantRoutes } from './compat/deepgram/grant.js';
import { registerFluxLive } from './compat/deepgram/flux-live.js';
import { dashboardStatic } from './dashboard/static.js';
import { createDashboard } from './dashboard/account.js';
import { dashboardApiRoutes } from './dashboard/routes.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface BuildAppOptions {
  /** Where the real-time WebSocket listens (filled in once it is started). */
  realtime?: RealtimeEndpoint;
  /** A pino logger instance or Fastify logger options; tests pass false. */
  logger?: FastifyServerOptions['loggerInstance'] | boolean;
}

function makeAjv(coerce: boolean): Ajv {
  // JSON bodies are validated strictly ("1.5" is not a number); query strings are text by nature
  // and are coerced.
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: true,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/** Removes the api_key query parameter from logged URLs: keys never reach the logs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]api_key=)[^&]*/gi, '$1[redacted]');
}

/** Pino options for the service: request lines without headers (X-API-Key) or key parameters. */
export function loggerOptions(level: string) {
  return {
    level,
    redact: { paths: ['req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers.authorization'], censor: '[redacted]' },
    serializers: {
      req(req: { method?: string; url?: string; id?: string }) {
        return { method: req.method, url: redactUrl(req.url ?? ''), id: req.id };
      },
    },
  };
}

export async function buildApp(services: Services, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const loggerOpts =
    typeof opts.logger === 'object'
      ? { loggerInstance: opts.logger }
      : { logger: opts.logger === false ? false : loggerOptions(services.config.logLevel) };
  const app = Fastify({
    ...loggerOpts,
    genReqId: newRequestId,
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: 2 * 1024 * 1024,
    // Clients may stop reading a stream; never let a stuck connection hold resources forever.
    connectionTimeout: 0,
    requestTimeout: 10 * 60 * 1000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy: services.config.trustProxy,
    // Whatever the input, the answer has the error body and X-Request-ID: what the router refuses
    // (bad percent-encoding) and what Node's parser refuses (unknown methods, broken framing).
    // Under /v1 in the dialect of the request (src/compat/dialect.ts): /v1/models/%ED%A0%80 is
    // OpenAI's (or, with Token, Deepgram's) 400, not the native body.
    frameworkErrors: (err, request, reply) => {
      if (!underV1(request.url)) return frameworkErrors(err, request, reply);
      const apiErr = frameworkApiError(err, request);
      request.log.info({ code: apiErr.code, fastifyCode: err.code }, apiErr.message);
      void sendDialectError(request, reply, apiErr);
    },
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  refuseConnect(app.server);
  serveWsRoutes(app.server, services.wsRoutes, app.log);
  // Upgraded sockets (the dialects' live streams) end gracefully before the server stops listening.
  app.addHook('preClose', () => services.wsRoutes.shutdown());
  refuseUnknownExpectation(app.server);
  registerJsonBodyParser(app);

  const bodyAjv = makeAjv(false);
  const queryAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? withNullMeansAbsent(schema, bodyAjv.compile(schema)) : queryAjv.compile(schema),
  );

  app.addSchema(ErrorBodySchema);
  // Before any route (the docs' too): metrics attach a hook to each route as it is added.
  await app.register(requestIdPlugin);
  await app.register(errorHandlerPlugin);
  // An early refusal (413 before the body is read) is read by every client: the rest is discarded, bounded.
  await app.register(drainPlugin);
  await app.register(metricsPlugin, { metrics: services.metrics });
  const metricsToken = services.config.metricsToken;
  if (metricsToken) await app.register(metricsRoute, { metrics: services.metrics, token: metricsToken });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parla API',
        version: VERSION,
        description: 'Self-hosted text-to-speech and speech-to-text. Every endpoint except /health needs the X-API-Key header.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer', description: 'The Parla key, on the OpenAI-compatible /v1 routes only.' },
        },
      },
      tags: [
        { name: 'tts', description: 'Text-to-speech' },
        { name: 'stt', description: 'Speech-to-text' },
        { name: 'catalog', description: 'Voices, languages and models' },
        { name: 'account', description: 'Usage and credits' },
        { name: 'health', description: 'Health check' },
        { name: 'openai', description: 'OpenAI-compatible audio API under /v1 (docs/compatibility.md)' },
        { name: 'deepgram', description: 'Deepgram-compatible API under /v1: speak (docs/compatibility.md)' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  const dashboard = createDashboard(services);
  // Before auth: the dashboard playground authenticates API requests by the session cookie.
  await app.register(cookie, { hook: false });
  await app.register(authPlugin, {
    authenticator: services.authenticator,
    sessionAuth: (request) => dashboard.playground.authenticate(request),
  });
  await app.register(rateLimitPlugin, { limiter: services.limiter, config: services.config });

  await app.register(openApiRoute);

  await app.register(healthRoutes, { services });
  await app.register(accountRoutes, { services, prefix: '/api/v1' });
  await app.register(catalogRoutes, { services, prefix: '/api/v1' });
  await app.register(languagesAliasRoutes, { catalog: services.catalog, prefix: '/api/api/v1' });
  await app.register(sttRoutes, { stt: services.stt, prefix: '/api/v1' });
  await app.register(jobRoutes, { services, prefix: '/api/v1' });
  await app.register(realtimeInfoRoutes, {
    services,
    endpoint: opts.realtime ?? { port: null, host: services.config.realtimeHost },
    prefix: '/api/v1',
  });
  await app.register(ttsRoutes, { tts: services.tts, prefix: '/api/v1' });
  await app.register(ttsTimestampRoutes, { tts: services.tts, prefix: '/api/v1' });
  await app.register(openAiRoutes, {
    tts: services.tts,
    stt: services.stt,
    encoders: services.encoders,
    mapping: services.config.product.openai,
    plans: services.config.product.plans,
    prefix: '/v1',
  });
  await registerDeepgram(app, services);
  await app.register(modelsRoutes, {
    openai: services.config.product.openai,
    deepgram: services.config.product.deepgram,
    registry: services.registry,
    prefix: '/v1',
  });
  // Live voice agents (issue 31): browser tokens (docs/realtime.md, "Browser tokens"), OpenAI's
  // Realtime transcription socket and Deepgram Flux (docs/compatibility.md), on both ports.
  await app.register(authTokenRoutes, { services, prefix: '/api/v1' });
  await app.register(clientSecretRoutes, { services, prefix: '/v1' });
  await app.register(deepgramGrantRoutes, { services, prefix: '/v1' });
  registerOpenAiRealtime(services);
  registerFluxLive(services);
  await app.register(dashboardStatic);
  await app.register(dashboardApiRoutes, { services, dashboard, prefix: '/dashboard/api' });

  return app;
}
