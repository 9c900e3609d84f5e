// Deepgram's streaming text-to-speech socket, WS /v1/speak (docs/compatibility.md, "Speak"), on the
// API port and the real-time TLS port (src/edge/ws-routes.ts). Everything that can be refused is
// refused at the handshake with an HTTP status and Deepgram's error body: key (401), parameters,
// model and voice (400), feature and plan (403), an empty balance (402), rate windows and the
// concurrency slot (429). The open socket holds one of the account's concurrency slots and counts
// as one request in its windows, like the native real-time socket (decisions #26).
//
// The session (speak-session.ts) turns Speak / Flush / Clear / Close into utterances, each spoken
// by TtsService.stream: the same per-character price, ledger, limits and metrics as
// /api/v1/tts/stream, billed per utterance for the sentences whose audio was sent.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Services } from '../../services.js';
import { ApiError } from '../../errors.js';
import type { UpgradeContext, UpgradeHandler } from '../../edge/ws-routes.js';
import { toApiError } from '../../faults/translate.js';
import { admitLease, type SlotLease } from '../../limits/slot-lease.js';
import { LIVE_SLOT_RENEW_MS } from '../../stt/service.js';
import { handshakeProblem } from '../../edge/ws-handshake.js';
import { refuseDeepgramUpgrade } from './errors.js';
import { handshakeKey } from './ws-auth.js';
import { socketSpeakParams, SpeakMapper, speakQuery } from './speak-mapping.js';
import { SpeakSession, SPEAK_SOCKET_LIMITS } from './speak-session.js';

export interface SpeakSocketOptions {
  /** No client message for this long, with nothing left to speak, closes the socket (default 60 s). */
  idleTimeoutMs?: number;
}

export interface SpeakSocketHandler extends UpgradeHandler {
  /** Ends every open session (the app is closing). */
  closeAll(): Promise<void>;
}

export function speakSocketHandler(services: Services, opts: SpeakSocketOptions = {}): SpeakSocketHandler {
  const mapper = new SpeakMapper(services.config.product.deepgram);
  // Client messages are small JSON: a Speak carries at most 2,000 characters.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: SPEAK_SOCKET_LIMITS.maxMessageBytes,
    handleProtocols: (protocols, req) => {
      // The key came as the subprotocol pair `token, <key>`: the answer must select `token` (ws-auth.ts).
      const p = handshakeKey(req).protocol;
      return p !== null && protocols.has(p) ? p : false;
    },
  });
  const sessions = new Set<SpeakSession>();

  const handler = async (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext): Promise<void> => {
    const { requestId } = ctx;
    const problem = handshakeProblem(req);
    if (problem) return refuseDeepgramUpgrade(socket, new ApiError('INVALID_REQUEST', { message: problem }), requestId, 'speak');
    let slot: SlotLease | null = null;
    try {
      const { key } = handshakeKey(req);
      const auth = await services.authenticator.authenticate(key ?? null);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const params = socketSpeakParams(url.searchParams);
      const voice = mapper.voice(speakQuery(url.searchParams).model, {
        name: auth.account.plan,
        ttsModels: services.config.product.plans[auth.account.plan].ttsModels,
      });
      services.tts.checkStream(auth, {
        voice: voice.voice,
        model: voice.model,
        language: undefined,
        speed: params.speed,
        pitch: undefined,
        sampleRate: params.sampleRate,
      });
      // Nothing to spend: refused now rather than at the first Flush (each utterance holds its own price).
      const balance = await services.billing.balance(auth);
      if (balance <= 0)
        throw new ApiError('INSUFFICIENT_CREDITS', { message: `The ${auth.mode} balance is ${balance} credits.`, details: { balance } });
      const plan = services.config.product.plans[auth.account.plan];
      slot = await admitLease(services.limiter, auth.account, plan);
      if (socket.destroyed || !socket.writable) {
        await slot.release();
        return;
      }
      const held = slot;
      let upgraded = false;
      socket.once('close', () => {
        if (!upgraded) void held.release();
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        upgraded = true;
        const renew = setInterval(held.renew, LIVE_SLOT_RENEW_MS);
        renew.unref();
        const session = new SpeakSession(ws, {
          tts: services.tts,
          auth,
          requestId,
          voice,
          params,
          log: services.log,
          idleTimeoutMs: opts.idleTimeoutMs ?? 60_000,
          onEnd: () => {
            clearInterval(renew);
            sessions.delete(session);
            void held.release();
          },
        });
        sessions.add(session);
        session.start();
      });
    } catch (err) {
      if (slot) await slot.release();
      refuseDeepgramUpgrade(socket, toApiError(err), requestId, 'speak');
    }
  };
  return Object.assign(handler, {
    async closeAll() {
      await Promise.all([...sessions].map((s) => s.end(1001, 'server shutting down')));
    },
  });
}
