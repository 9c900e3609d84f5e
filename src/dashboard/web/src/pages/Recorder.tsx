// Records from the microphone with MediaRecorder (WebM/Opus in Chromium and Firefox, MP4 in
// Safari: the service decodes all of them). Browsers allow the microphone only on HTTPS or
// localhost, and only after the person agrees: every refusal is explained, never silent.

import { useEffect, useRef, useState } from 'preact/hooks';

type State = { kind: 'idle' } | { kind: 'asking' } | { kind: 'recording'; since: number } | { kind: 'error'; message: string };

const supported = () => typeof window.MediaRecorder !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';

function explain(err: unknown): string {
  const name = err instanceof DOMException ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return 'The browser was not allowed to use the microphone. Allow it in the address bar, or upload a file instead.';
  if (name === 'NotFoundError') return 'No microphone was found.';
  if (name === 'NotReadableError') return 'The microphone is in use by another application.';
  return `Recording failed: ${err instanceof Error ? err.message : String(err)}`;
}

export function Recorder({ onRecorded }: { onRecorded: (audio: Blob | null) => void }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [elapsed, setElapsed] = useState(0);
  const recorder = useRef<MediaRecorder | null>(null);
  const stream = useRef<MediaStream | null>(null);

  const release = () => {
    for (const track of stream.current?.getTracks() ?? []) track.stop();
    stream.current = null;
  };
  useEffect(
    () => () => {
      if (recorder.current?.state === 'recording') recorder.current.stop();
      release();
    },
    [],
  );
  useEffect(() => {
    if (state.kind !== 'recording') return undefined;
    const timer = setInterval(() => setElapsed((Date.now() - state.since) / 1000), 250);
    return () => clearInterval(timer);
  }, [state]);

  if (!supported()) {
    return (
      <p class="notice">This browser cannot record here (recording needs HTTPS or localhost and MediaRecorder). Upload a file instead.</p>
    );
  }

  const start = async () => {
    setState({ kind: 'asking' });
    onRecorded(null);
    try {
      stream.current = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
      });
      const rec = new MediaRecorder(stream.current);
      const chunks: Blob[] = [];
      rec.ondataavailable = (e) => {
        if (e.data.size > 0) chunks.push(e.data);
      };
      rec.onstop = () => {
        release();
        onRecorded(chunks.length ? new Blob(chunks, { type: rec.mimeType || 'audio/webm' }) : null);
        setState({ kind: 'idle' });
      };
      recorder.current = rec;
      rec.start(250);
      setElapsed(0);
      setState({ kind: 'recording', since: Date.now() });
    } catch (err) {
      release();
      setState({ kind: 'error', message: explain(err) });
    }
  };

  return (
    <div class="recorder">
      {state.kind === 'recording' ? (
        <button type="button" class="button danger" onClick={() => recorder.current?.stop()}>
          <span class="rec-dot" aria-hidden="true" /> Stop recording
        </button>
      ) : (
        <button type="button" class="button secondary" onClick={() => void start()} disabled={state.kind === 'asking'}>
          {state.kind === 'asking' ? 'Waiting for the microphone…' : 'Start recording'}
        </button>
      )}
      <span class="muted small" aria-live="polite">
        {state.kind === 'recording'
          ? `Recording… ${elapsed.toFixed(0)} s`
          : state.kind === 'error'
            ? ''
            : 'Speak after you start; stop when you are done.'}
      </span>
      {state.kind === 'error' && (
        <p class="notice error" role="alert">
          {state.message}
        </p>
      )}
    </div>
  );
}
