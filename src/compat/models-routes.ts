// GET /v1/models and /v1/models/{id}: the one path both dialects have (docs/compatibility.md,
// "One /v1, two dialects"), and the 404 of every /v1 path no route has. OpenAI's SDK (`models.list()`, Bearer) gets OpenAI's list; Deepgram's
// SDK (`manage.v1.models.list()`, Token) gets Deepgram's {stt, tts}; errors in the same dialect
// (src/compat/dialect.ts). An edge only: the ids come from the two mapping tables and the registry.

import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { DeepgramMapping, OpenAiMapping } from '../config.js';
import { ApiError } from '../errors.js';
import { STT_MODELS, type ModelRegistry, type SttModel } from '../registry/model-registry.js';
import { VERSION } from '../routes/health.js';
import { own } from '../domain/lookup.js';
import { dialectOf, sendDialectError, sendDialectNotFound } from './dialect.js';
import { OpenAiMapper } from './openai/mapping.js';
import { modelUuid } from './deepgram/listen-render.js';

export interface ModelsRouteOptions {
  openai: OpenAiMapping;
  deepgram: DeepgramMapping;
  registry: ModelRegistry;
}

interface DeepgramSttModel {
  name: string;
  canonical_name: string;
  architecture: string;
  languages: string[];
  version: string;
  uuid: string;
  batch: boolean;
  streaming: boolean;
  formatted_output: boolean;
}
interface DeepgramTtsModel {
  name: string;
  canonical_name: string;
  architecture: string;
  languages: string[];
  version: string;
  uuid: string;
}

/**
 * Deepgram's list: every STT id of the table (and Parla's own) with the engine serving its Parla
 * model and that engine's languages; every Aura-2 voice of the voice table (`aura-2-<voice>-en`,
 * the family Deepgram lists first; the `aura-<voice>-en` names work too), English.
 */
function deepgramModels(table: DeepgramMapping, registry: ModelRegistry): { stt: DeepgramSttModel[]; tts: DeepgramTtsModel[] } {
  const stt = [...Object.keys(table.sttModels), ...STT_MODELS].map((id) => {
    const model = (own(table.sttModels, id) ?? id) as SttModel;
    const engine = registry.sttBinding(model)?.engine.id ?? 'none';
    return {
      name: id,
      canonical_name: id,
      architecture: `${model} (${engine})`,
      languages: registry.sttLanguages(model),
      version: VERSION,
      uuid: modelUuid(id, engine),
      batch: true,
      streaming: true,
      formatted_output: true,
    };
  });
  const ttsModel = own(table.ttsModels, 'aura-2');
  const tts =
    ttsModel === undefined
      ? []
      : Object.keys(table.voices).map((voice) => {
          const id = `aura-2-${voice}-en`;
          return {
            name: voice,
            canonical_name: id,
            architecture: ttsModel,
            languages: ['en-US'],
            version: VERSION,
            uuid: modelUuid(id, ttsModel),
          };
        });
  return { stt, tts };
}

export const modelsRoutes: FastifyPluginAsync<ModelsRouteOptions> = async (app, { openai, deepgram, registry }) => {
  const mapper = new OpenAiMapper(openai);
  // When this node started: the `created` of every model OpenAI's list shows.
  const created = Math.floor(Date.now() / 1000);
  app.setErrorHandler(async (err, request, reply) => sendDialectError(request, reply, err));
  // Every path under /v1 no route has (this plugin holds the /v1 prefix's not-found handler): the
  // request's dialect, Deepgram's for its paths or a Token key.
  app.setNotFoundHandler(async (request, reply) => sendDialectNotFound(request, reply));
  const deepgramOf = (request: FastifyRequest) => dialectOf(request.url, request.headers.authorization) === 'deepgram';
  const doc = (summary: string) => ({
    tags: ['openai', 'deepgram'],
    summary,
    description: "OpenAI's shape with Bearer (or X-API-Key), Deepgram's {stt, tts} with Authorization: Token (docs/compatibility.md).",
    security: [{ bearer: [] }],
  });

  app.get('/models', { schema: doc('OpenAI: list models; Deepgram: list models') }, async function listModels(request) {
    if (deepgramOf(request)) return deepgramModels(deepgram, registry);
    return { object: 'list' as const, data: mapper.modelIds().map((id) => ({ id, object: 'model' as const, created, owned_by: 'parla' })) };
  });

  app.get(
    '/models/:model',
    {
      schema: {
        ...doc('OpenAI: retrieve a model; Deepgram: get a model (by uuid or name)'),
        params: { type: 'object', properties: { model: { type: 'string' } } },
      },
    },
    async function getModel(request) {
      const { model } = request.params as { model: string };
      if (deepgramOf(request)) {
        const { stt, tts } = deepgramModels(deepgram, registry);
        const found = [...stt, ...tts].find((m) => m.uuid === model || m.canonical_name === model);
        if (!found) throw new ApiError('NOT_FOUND', { message: `No model "${model.slice(0, 100)}" here.`, details: { field: 'model_id' } });
        return found;
      }
      if (!mapper.modelIds().includes(model))
        throw new ApiError('NOT_FOUND', {
          message: `The model "${model.slice(0, 100)}" does not exist here.`,
          details: { field: 'model' },
        });
      return { id: model, object: 'model' as const, created, owned_by: 'parla' };
    },
  );
};
