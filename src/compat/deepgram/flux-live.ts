// WS /v2/listen: Deepgram Flux, live transcription by turns (docs/compatibility.md, "Flux: WS
// /v2/listen"), on the API port and the real-time TLS port. The key as on /v1/listen (Authorization
// Token or Bearer, a browser token, the `token, <key>` subprotocols); Flux's query (flux-params.ts);
// then the same admission, session, billing, limits and metrics as every live stream
// (src/stt/live/live-upgrade.ts), with the session's turn layer on (src/stt/live/turns.ts) and
// Flux's messages (flux-output.ts). Client messages: binary audio, Configure (thresholds, keyterms),
// ForceEndTurn, CloseStream (and KeepAlive).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Services } from '../../services.js';
import type { UpgradeContext } from '../../edge/ws-routes.js';
import { ApiError } from '../../errors.js';
import { toApiError } from '../../faults/translate.js';
import { handshakeProblem } from '../../edge/ws-handshake.js';
import { acceptLiveStream, readFrames, transportOf } from '../../edge/live-upgrade.js';
import { LiveSessions } from '../../edge/live-sessions.js';
import type { RealtimeSession } from '../../stt/live/session.js';
import { opusSupported } from '../../stt/live/opus-decoder.js';
import { parseTurnSettings, type TurnSettings } from '../../stt/live/turns.js';
import { expandG711 } from '../../audio/g711-decode.js';
import { handshakeKey } from './ws-auth.js';
import { refuseDeepgramUpgrade } from './errors.js';
import { parseFluxParams } from './flux-params.js';
import { FluxOutput } from './flux-output.js';
import { configure, controlMessage, objectField } from './configure.js';

export const FLUX_PATH = '/v2/listen';

/** Flux's Configure (configure.ts): new thresholds apply from the next frame, keyterms from the next utterance (decision #76). */
function configureFlux(
  msg: Record<string, unknown>,
  p: { turns: TurnSettings; keyterms: string[] },
  session: RealtimeSession,
  out: FluxOutput,
): void {
  const { turns } = p;
  const result = configure(msg, p.keyterms, (m, changed) => {
    if (m.thresholds === null) throw new Error('thresholds must be an object');
    const t = objectField(m, 'thresholds');
    const next = t === undefined ? turns : parseTurnSettings(t, turns);
    return () => {
      if (changed && !session.setKeywords(changed.slice(0, 50))) throw new Error('this stream cannot change its keyterms');
      if (changed) p.keyterms = changed;
      Object.assign(turns, next);
    };
  });
  if (result.ok) out.configured(turns, result.keyterms);
  else out.configureFailed();
}

export function fluxLive(services: Services, opts: { recognizerWaitMs?: number } = {}) {
  const selected = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20, handleProtocols: (_offered, req) => selected.get(req) ?? false });
  const sessions = new LiveSessions();

  async function handler(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext): Promise<void> {
    const { requestId } = ctx;
    socket.on('error', () => socket.destroy());
    const problem = handshakeProblem(req);
    if (problem) return refuseDeepgramUpgrade(socket, new ApiError('INVALID_REQUEST', { message: problem }), requestId);
    try {
      const { key, protocol } = handshakeKey(req);
      const auth = await services.authenticator.authenticateLive(key);
      services.stt.checkAccess(auth, 'live');
      const p = parseFluxParams(new URL(req.url ?? '/', 'http://localhost').searchParams, services.config.product.deepgram);
      if (p.session.encoding === 'opus' && !(await opusSupported())) {
        throw new ApiError('INVALID_FORMAT', {
          message: 'This server has no Opus decoder (ffmpeg); send linear16.',
          details: { field: 'encoding', provided: 'opus', suggestions: ['linear16'] },
        });
      }
      if (protocol) selected.set(req, protocol);
      let output: FluxOutput | null = null;
      await acceptLiveStream({
        services,
        wss,
        req,
        socket,
        head,
        requestId,
        auth,
        params: p.session,
        turns: p.turns,
        recognizerWaitMs: opts.recognizerWaitMs ?? 3000,
        idleTimeoutMs: services.config.realtimeIdleTimeoutSeconds * 1000,
        recognizerIdleMs: services.config.realtimeRecognizerIdleSeconds * 1000,
        maxSessionSeconds: services.config.realtimeMaxSessionSeconds,
        output: (ws) => (output = new FluxOutput(transportOf(ws))),
        wire: (ws, session) =>
          readFrames(ws, session, (bytes, isBinary) => {
            if (isBinary) {
              if (bytes.length > 0) session.onAudio(p.expand ? expandG711(bytes, p.expand) : bytes);
              return;
            }
            const text = bytes.toString();
            const msg = controlMessage(text);
            const type = msg?.type;
            if (type === 'Configure') return configureFlux(msg!, p, session, output!);
            if (type === 'ForceEndTurn') return session.forceEndTurn();
            // CloseStream, KeepAlive, and what the session refuses with an Error message.
            if (type === 'CloseStream' || type === 'KeepAlive') return session.onText(text);
            output?.error('INVALID_REQUEST', 'Messages are JSON objects: Configure, ForceEndTurn or CloseStream (or binary audio).');
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

/** Serves WS /v2/listen on both ports (src/edge/ws-routes.ts). */
export function registerFluxLive(services: Services): void {
  const f = fluxLive(services);
  services.wsRoutes.add(FLUX_PATH, f.handler, f.shutdown);
}
