// Playground, live: the microphone streamed to Deepgram Flux's /v2/listen on this server, turns
// shown as they happen (started, may be done, done). The page asks for a browser token
// (POST /api/v1/auth/tokens, with the session) and opens the socket with it; it never holds a key.
// Audio goes as MediaRecorder records it (WebM/Opus in Chromium and Firefox), a piece every 250 ms.

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, speechApi, type KeyMode } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';

type TurnState = 'speaking' | 'maybe-done' | 'done';

interface Turn {
  index: number;
  transcript: string;
  state: TurnState;
}

type Status = { kind: 'idle' } | { kind: 'connecting' } | { kind: 'live' } | { kind: 'stopping' };

const STATE_LABEL: Record<TurnState, string> = { speaking: 'speaking…', 'maybe-done': 'may be done', done: 'done' };

const supported = () =>
  typeof window.MediaRecorder !== 'undefined' &&
  typeof navigator.mediaDevices?.getUserMedia === 'function' &&
  typeof WebSocket !== 'undefined';

interface TurnInfo {
  type: 'TurnInfo';
  event: string;
  turn_index: number;
  transcript: string;
}

export function LivePanel({ mode }: { mode: KeyMode }) {
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const socket = useRef<WebSocket | null>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const stream = useRef<MediaStream | null>(null);

  const release = () => {
    for (const track of stream.current?.getTracks() ?? []) track.stop();
    stream.current = null;
  };
  useEffect(
    () => () => {
      if (recorder.current?.state === 'recording') recorder.current.stop();
      socket.current?.close();
      release();
    },
    [],
  );

  const onTurn = (m: TurnInfo) => {
    const state: TurnState = m.event === 'EndOfTurn' ? 'done' : m.event === 'EagerEndOfTurn' ? 'maybe-done' : 'speaking';
    setTurns((list) => {
      const rest = list.filter((t) => t.index !== m.turn_index);
      return [...rest, { index: m.turn_index, transcript: m.transcript, state }].sort((a, b) => a.index - b.index);
    });
  };

  const fail = (message: string) => {
    setError(new ApiError(0, 'LIVE', message, undefined, undefined));
    if (recorder.current?.state === 'recording') recorder.current.stop();
    release();
    setStatus({ kind: 'idle' });
  };

  const start = async () => {
    setError(null);
    setTurns([]);
    setStatus({ kind: 'connecting' });
    try {
      // The token and the socket first, the microphone last: what is said once it is on is sent.
      const { token } = await speechApi.liveToken(mode);
      const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
      // The token travels as a subprotocol, as browsers must (they cannot set headers on a WebSocket).
      const ws = new WebSocket(`${scheme}://${window.location.host}/v2/listen?model=flux-general-en&encoding=opus`, ['token', token]);
      socket.current = ws;
      ws.onmessage = (e) => {
        const m = JSON.parse(String(e.data)) as { type: string; description?: string };
        if (m.type === 'TurnInfo') onTurn(m as TurnInfo);
        else if (m.type === 'Error')
          setError(new ApiError(0, 'LIVE', m.description ?? 'The live stream reported an error.', undefined, undefined));
      };
      ws.onclose = (e) => {
        socket.current = null;
        if (recorder.current?.state === 'recording') recorder.current.stop();
        release();
        setStatus({ kind: 'idle' });
        if (e.code !== 1000 && e.code !== 1005)
          setError(new ApiError(0, 'LIVE', `The live stream closed (${e.code}${e.reason ? `: ${e.reason}` : ''}).`, undefined, undefined));
      };
      ws.onopen = () => {
        void (async () => {
          try {
            stream.current = await navigator.mediaDevices.getUserMedia({
              audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
            });
          } catch (err) {
            ws.close(1000);
            const name = err instanceof DOMException ? err.name : '';
            fail(
              name === 'NotAllowedError' || name === 'SecurityError'
                ? 'The browser was not allowed to use the microphone. Allow it in the address bar.'
                : `The microphone could not start: ${err instanceof Error ? err.message : String(err)}`,
            );
            return;
          }
          const type = MediaRecorder.isTypeSupported('audio/webm;codecs=opus') ? 'audio/webm;codecs=opus' : '';
          const rec = new MediaRecorder(stream.current, type ? { mimeType: type } : undefined);
          rec.ondataavailable = (e) => {
            if (e.data.size > 0 && ws.readyState === WebSocket.OPEN) ws.send(e.data);
          };
          // The last piece is sent before the stream is closed: the open turn ends with it.
          rec.onstop = () => {
            if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'CloseStream' }));
          };
          recorder.current = rec;
          rec.start(250);
          setStatus({ kind: 'live' });
        })();
      };
    } catch (err) {
      if (err instanceof ApiError) {
        setError(err);
        release();
        setStatus({ kind: 'idle' });
      } else {
        fail(`The live stream could not start: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };

  const stop = () => {
    setStatus({ kind: 'stopping' });
    if (recorder.current?.state === 'recording') recorder.current.stop();
    else socket.current?.send(JSON.stringify({ type: 'CloseStream' }));
  };

  return (
    <section class="card" aria-labelledby="live-title">
      <h2 id="live-title">Live: turns as you speak</h2>
      <p class="muted">
        The microphone streamed to /v2/listen (Deepgram Flux) with a one-minute browser token; billed per second of audio like any live
        stream.
      </p>
      {!supported() ? (
        <p class="notice">This browser cannot stream the microphone here (it needs HTTPS or localhost, MediaRecorder and WebSocket).</p>
      ) : (
        <div class="row wrap">
          {status.kind === 'live' || status.kind === 'stopping' ? (
            <button type="button" class="button danger" onClick={stop} disabled={status.kind === 'stopping'}>
              <span class="rec-dot" aria-hidden="true" /> {status.kind === 'stopping' ? 'Stopping…' : 'Stop live'}
            </button>
          ) : (
            <button type="button" class="button secondary" onClick={() => void start()} disabled={status.kind === 'connecting'}>
              {status.kind === 'connecting' ? 'Connecting…' : 'Start live'}
            </button>
          )}
        </div>
      )}
      <ErrorNotice error={error} />
      {turns.length > 0 && (
        <ol class="stack" aria-live="polite" data-testid="live-turns">
          {turns.map((t) => (
            <li key={t.index} data-testid="live-turn" data-state={t.state}>
              <span class="muted">
                Turn {t.index + 1} · {STATE_LABEL[t.state]}
              </span>
              <blockquote class="transcript">{t.transcript || '…'}</blockquote>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
