// WS /v1/listen: Deepgram's live transcription socket (docs/compatibility.md, "Live: WS /v1/listen"),
// served on the API port and the real-time TLS port (src/edge/ws-routes.ts). A thin dialect over
// the native socket's machinery: the key from `Authorization: Token|Bearer` or the browsers'
// `token, <key>` subprotocols, Deepgram's query parameters (live-params.ts), then the same admission,
// session, billing, limits and metrics as the native stream (src/stt/live/live-upgrade.ts), with
// Deepgram's messages and close frames (listen-output.ts). Refusals before the upgrade are HTTP
// errors in Deepgram's body (errors.ts).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Services } from '../../services.js';
import type { UpgradeContext, UpgradeHandler } from '../../edge/ws-routes.js';
import { ApiError } from '../../errors.js';
import { toApiError } from '../../faults/translate.js';
import { handshakeProblem } from '../../edge/ws-handshake.js';
import { acceptLiveStream, readFrames, transportOf } from '../../edge/live-upgrade.js';
import { LiveSessions } from '../../edge/live-sessions.js';
import { opusSupported } from '../../stt/live/opus-decoder.js';
import { handshakeKey } from './ws-auth.js';
import { refuseDeepgramUpgrade } from './errors.js';
import { parseDeepgramLiveParams } from './live-params.js';
import { ListenOutput } from './listen-output.js';
import { expandG711 } from '../../audio/g711-decode.js';
import { controlMessage } from './configure.js';
import { configureListen, type StreamTerms } from './listen-configure.js';

export const LISTEN_PATH = '/v1/listen';

export interface ListenLiveOptions {
  /** How long an upgrade waits for a free recognizer before 503 (as the native socket: 3 s). */
  recognizerWaitMs?: number;
}

/** The /v1/listen upgrade handler and the shutdown that ends its open streams. */
export function listenLive(services: Services, opts: ListenLiveOptions = {}): { handler: UpgradeHandler; shutdown(): Promise<void> } {
  // The subprotocol to select per handshake: `token` when the key came as `token, <key>` (a browser
  // drops a connection whose answer selects none of the protocols it offered).
  const selected = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    // As the native socket: one frame is at most 1 MB (about 30 s of 16 kHz linear16).
    maxPayload: 1 << 20,
    handleProtocols: (_offered, req) => selected.get(req) ?? false,
  });
  const sessions = new LiveSessions();

  async function handler(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext): Promise<void> {
    const { requestId } = ctx;
    socket.on('error', () => socket.destroy());
    // A handshake ws would refuse is refused here, before a slot, a hold and a recognizer are taken.
    const problem = handshakeProblem(req);
    if (problem) return refuseDeepgramUpgrade(socket, new ApiError('INVALID_REQUEST', { message: problem }), requestId);
    try {
      const { key, protocol } = handshakeKey(req);
      const auth = await services.authenticator.authenticateLive(key);
      services.stt.checkAccess(auth, 'live');
      const url = new URL(req.url ?? '/', 'http://localhost');
      const p = parseDeepgramLiveParams(url.searchParams, services.config.product.deepgram);
      // What a Configure replaces: the stream's keyterm parameters (its keywords parameters stay).
      const keyterms = url.searchParams
        .getAll('keyterm')
        .map((k) => k.trim())
        .filter((k) => k !== '');
      const terms: StreamTerms = { keyterms, keywords: p.session.keywords.filter((k) => !keyterms.includes(k)) };
      if (p.session.encoding !== 'linear16' && !(await opusSupported())) {
        const provided = p.session.encoding === 'opus' ? 'opus' : '(none: a container)';
        throw new ApiError('INVALID_FORMAT', {
          message:
            'This server has no decoder for compressed or containerized audio (ffmpeg); send raw audio with encoding=linear16 and sample_rate.',
          details: { field: 'encoding', provided, suggestions: ['linear16'] },
        });
      }
      if (protocol) selected.set(req, protocol);
      let output: ListenOutput | null = null;
      await acceptLiveStream({
        services,
        wss,
        req,
        socket,
        head,
        requestId,
        auth,
        params: p.session,
        recognizerWaitMs: opts.recognizerWaitMs ?? 3000,
        recognizerIdleMs: services.config.realtimeRecognizerIdleSeconds * 1000,
        idleTimeoutMs: services.config.realtimeIdleTimeoutSeconds * 1000,
        maxSessionSeconds: services.config.realtimeMaxSessionSeconds,
        output: (ws) =>
          (output = new ListenOutput(transportOf(ws), { vadEvents: p.vadEvents, utteranceEnd: p.utteranceEnd, redaction: p.redaction })),
        wire: (ws, session) =>
          readFrames(ws, session, (bytes, isBinary) => {
            if (!isBinary) {
              const msg = controlMessage(bytes.toString());
              if (msg?.type === 'Configure') return configureListen(msg, p.session, terms, session, output!);
              return session.onText(bytes.toString());
            }
            // An empty binary frame is Deepgram's old way of saying CloseStream; it still means that.
            if (bytes.length === 0) return session.onText('{"type":"CloseStream"}');
            output?.audioReceived(bytes);
            session.onAudio(p.expand ? expandG711(bytes, p.expand) : bytes);
          }),
        track: sessions.track,
        ended: sessions.ended,
      });
    } catch (err) {
      refuseDeepgramUpgrade(socket, toApiError(err), requestId);
    }
  }

  return { handler, shutdown: () => sessions.shutdown() };
}

/** Serves WS /v1/listen on both ports (src/edge/ws-routes.ts). */
export function registerListenLive(services: Services, opts: ListenLiveOptions = {}): void {
  const live = listenLive(services, opts);
  services.wsRoutes.add(LISTEN_PATH, live.handler, live.shutdown);
}
