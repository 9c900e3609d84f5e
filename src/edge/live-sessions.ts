// The open live streams of one socket route (the native socket, Deepgram's /v1/listen and /v2/listen),
// for the route's shutdown: every stream is told to end (its final results and summary go out),
// then the sockets get their close handshakes (closeSockets). One copy instead of one per route.

import type { WebSocket } from 'ws';
import type { RealtimeSession } from '../stt/live/session.js';
import { closeSockets } from './live-upgrade.js';

export class LiveSessions {
  private readonly open = new Map<RealtimeSession, WebSocket>();

  /** How many streams are open. */
  get size(): number {
    return this.open.size;
  }

  /** For acceptLiveStream's `track`. */
  readonly track = (session: RealtimeSession, ws: WebSocket): void => void this.open.set(session, ws);

  /** For acceptLiveStream's `ended`. */
  readonly ended = (session: RealtimeSession): void => void this.open.delete(session);

  /** Ends every open stream as at a server shutdown, then closes their sockets. */
  async shutdown(): Promise<void> {
    const open = [...this.open];
    await Promise.all(open.map(([s]) => s.end('shutdown')));
    await closeSockets(open.map(([, ws]) => ws));
  }
}
