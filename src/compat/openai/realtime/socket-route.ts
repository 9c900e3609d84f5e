// WS /v1/realtime: OpenAI's Realtime socket for transcription sessions (docs/compatibility.md,
// "Realtime: WS /v1/realtime"), on the API port and on the real-time TLS port, where the official
// `openai` package connects (it always uses wss://). The key (or a browser token, `ek_...`) comes
// as `Authorization: Bearer` or, from browsers, as the subprotocol `openai-insecure-api-key.<key>`
// beside `realtime` (which the answer then selects). Everything that can be refused is refused
// before the upgrade, as an HTTP error in OpenAI's body: the key, the feature switch, the query
// (`model`, `intent`), then the admission (windows, concurrency slot, credits, a recognizer).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Services } from '../../../services.js';
import type { UpgradeContext } from '../../../edge/ws-routes.js';
import { ApiError } from '../../../errors.js';
import { toApiError } from '../../../faults/translate.js';
import { handshakeProblem } from '../../../edge/ws-handshake.js';
import { closeSockets, HOLD_BLOCK_SECONDS } from '../../../edge/live-upgrade.js';
import type { SttModel } from '../../../registry/model-registry.js';
import { OpenAiMapper } from '../mapping.js';
import { defaultConfig, type TranscriptionConfig } from './session-config.js';
import { DEFAULT_TRANSCRIPTION_MODEL } from './models.js';
import { TranscriptionSocket } from './transcription-socket.js';
import { handshakeCredential, refuse } from './handshake.js';

export const REALTIME_OPENAI_PATH = '/v1/realtime';
/** One event may carry this much (base64 audio): about 45 s of 24 kHz PCM. */
const MAX_EVENT_BYTES = 4 << 20;

export function openAiRealtimeSocket(services: Services, opts: { recognizerWaitMs?: number } = {}) {
  const selected = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_EVENT_BYTES,
    handleProtocols: (_offered, req) => selected.get(req) ?? false,
  });
  const open = new Set<TranscriptionSocket>();
  const mapper = new OpenAiMapper(services.config.product.openai);
  // OpenAI clients send no keep-alive: a quiet socket waits for its user longer than the native 10 s.
  const idleTimeoutMs = Math.max(60, services.config.realtimeIdleTimeoutSeconds) * 1000;

  /** The Parla model of a transcription model name; a speech-to-speech model name means the default. */
  function parlaModel(name: string): SttModel {
    if (/realtime|^gpt-audio/.test(name)) return mapper.sttModel(DEFAULT_TRANSCRIPTION_MODEL) as SttModel;
    return mapper.sttModel(name) as SttModel;
  }
  const resolve = (c: TranscriptionConfig) => {
    const model = parlaModel(c.model);
    // Checked here, before a session.update gives its recognizer back to be admitted again.
    if (c.language !== null) services.registry.resolveSttLanguage(model, c.language);
    return {
      model,
      language: c.language ?? undefined,
      // The prompt's words boost the recognizer, as `prompt` does on /v1/audio/transcriptions for whisper-1.
      keywords: c.prompt
        .split(/[\s,]+/)
        .filter((w) => /^[\p{L}\p{N}'-]{2,40}$/u.test(w))
        .slice(0, 50),
    };
  };

  async function handler(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext): Promise<void> {
    const { requestId } = ctx;
    socket.on('error', () => socket.destroy());
    const problem = handshakeProblem(req);
    if (problem) return refuse(socket, new ApiError('INVALID_REQUEST', { message: problem }), requestId);
    try {
      const { key, protocol } = handshakeCredential(req);
      const auth = await services.authenticator.authenticateLive(key);
      services.stt.checkAccess(auth, 'live');
      const url = new URL(req.url ?? '/', 'http://localhost');
      const intent = url.searchParams.get('intent');
      if (intent !== null && intent !== 'transcription') {
        throw new ApiError('INVALID_PARAMETER', {
          message: 'intent must be "transcription": this server serves transcription sessions.',
          details: { field: 'intent', provided: intent.slice(0, 64) },
        });
      }
      const model = url.searchParams.get('model');
      // A transcription model in the URL is the session's; a speech-to-speech one starts on the default.
      const config = defaultConfig(model && !/realtime|^gpt-audio/.test(model) ? model.slice(0, 100) : DEFAULT_TRANSCRIPTION_MODEL);
      const admit = async (c: TranscriptionConfig) => {
        const r = resolve(c);
        return services.stt.openLive(auth, {
          requestId,
          model: r.model,
          language: r.language,
          keywords: r.keywords,
          recognizerWaitMs: opts.recognizerWaitMs ?? 3000,
          holdBlockSeconds: HOLD_BLOCK_SECONDS,
        });
      };
      const live = await admit(config);
      if (socket.destroyed || !socket.writable) {
        await live.abandon();
        return;
      }
      if (protocol) selected.set(req, protocol);
      let upgraded = false;
      socket.once('close', () => {
        if (!upgraded) void live.abandon().catch(() => undefined);
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        upgraded = true;
        const s: TranscriptionSocket = new TranscriptionSocket(
          ws,
          {
            services,
            auth,
            requestId,
            config,
            resolve,
            admit,
            idleTimeoutMs,
            maxSessionSeconds: services.config.realtimeMaxSessionSeconds,
            onEnd: () => open.delete(s),
          },
          live,
        );
        open.add(s);
      });
    } catch (err) {
      refuse(socket, toApiError(err), requestId);
    }
  }

  async function shutdown(): Promise<void> {
    await Promise.all([...open].map((s) => s.end('shutdown')));
    await closeSockets(wss.clients);
  }

  return { handler, shutdown };
}

/** Serves WS /v1/realtime on both ports (src/edge/ws-routes.ts). */
export function registerOpenAiRealtime(services: Services): void {
  const s = openAiRealtimeSocket(services);
  services.wsRoutes.add(REALTIME_OPENAI_PATH, s.handler, s.shutdown);
}
