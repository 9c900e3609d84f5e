// Playground, speech-to-text: an uploaded file or a microphone recording sent to the real
// POST /api/v1/stt/transcribe; the transcript, the words with their timings, and the cost.

import { useEffect, useRef, useState } from 'preact/hooks';
import { speechApi, type KeyMode, type TranscriptionResult } from '../api';
import { CreditsLine } from '../components/CreditsLine';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatSeconds } from '../format';
import { useObjectUrl } from '../hooks';
import { Recorder } from './Recorder';

const MODELS = [
  { id: 'cipher-fast', label: 'Cipher Fast' },
  { id: 'cipher-max', label: 'Cipher Max' },
  { id: 'lucid-mono', label: 'Lucid Mono' },
  { id: 'lucid-multi', label: 'Lucid Multi' },
  { id: 'lucid-agent', label: 'Lucid Agent' },
  { id: 'lucid-lite', label: 'Lucid Lite' },
] as const;

const RESPONSE_FORMATS = [
  { id: 'verbose_json', label: 'Verbose JSON (words with timings)' },
  { id: 'json', label: 'JSON' },
  { id: 'text', label: 'Plain text' },
  { id: 'srt', label: 'SRT subtitles' },
  { id: 'vtt', label: 'WebVTT subtitles' },
] as const;

interface Word {
  word: string;
  punctuated_word?: string;
  start: number;
  end: number;
  confidence?: number;
  speaker?: number;
}

interface JsonTranscript {
  text?: string;
  duration?: number;
  language?: string;
  model?: string;
  words?: Word[];
}

function Transcript({ result }: { result: TranscriptionResult }) {
  if (typeof result.body === 'string') {
    return (
      <div class="field">
        <span class="label">Response ({result.contentType.split(';')[0]})</span>
        <pre class="transcript-raw" data-testid="transcript">
          {result.body}
        </pre>
      </div>
    );
  }
  const t = result.body as JsonTranscript;
  return (
    <>
      <blockquote class="transcript" data-testid="transcript">
        {t.text?.trim() ? t.text : <span class="muted">No speech was recognized.</span>}
      </blockquote>
      <p class="muted small">
        {[
          t.duration !== undefined ? `${formatSeconds(t.duration)} of audio` : '',
          t.language ? `language ${t.language}` : '',
          t.model ?? '',
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {t.words && t.words.length > 0 && (
        <details class="words" open>
          <summary>{t.words.length} words with timings</summary>
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Word</th>
                  <th scope="col" class="num">
                    Start
                  </th>
                  <th scope="col" class="num">
                    End
                  </th>
                  <th scope="col" class="num">
                    Confidence
                  </th>
                </tr>
              </thead>
              <tbody>
                {t.words.map((w, i) => (
                  <tr key={i}>
                    <th scope="row">{w.punctuated_word ?? w.word}</th>
                    <td class="num">{formatSeconds(w.start)}</td>
                    <td class="num">{formatSeconds(w.end)}</td>
                    <td class="num">{w.confidence !== undefined ? `${Math.round(w.confidence * 100)}%` : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </>
  );
}

export function SttPanel({ mode }: { mode: KeyMode }) {
  const [source, setSource] = useState<'file' | 'mic'>('file');
  const [file, setFile] = useState<File | null>(null);
  const [recording, setRecording] = useState<Blob | null>(null);
  const [model, setModel] = useState<string>('cipher-fast');
  const [language, setLanguage] = useState('');
  const [format, setFormat] = useState<string>('verbose_json');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<TranscriptionResult | null>(null);
  /** Counts the results shown, so that each new one is told apart from the last (and by tests). */
  const [resultCount, setResultCount] = useState(0);
  const abort = useRef<AbortController | null>(null);
  const audio = source === 'file' ? file : recording;
  const previewUrl = useObjectUrl(audio);

  useEffect(() => () => abort.current?.abort(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!audio) return;
    const form = new FormData();
    form.append('model', model);
    if (language.trim()) form.append('language', language.trim());
    form.append('response_format', format);
    if (format === 'verbose_json') form.append('timestamp_granularities', 'word');
    // The file goes last: the server reads the fields while the upload streams in.
    const name =
      audio instanceof File ? audio.name : `recording.${audio.type.includes('ogg') ? 'ogg' : audio.type.includes('mp4') ? 'm4a' : 'webm'}`;
    form.append('file', audio, name);
    abort.current = new AbortController();
    setBusy(true);
    setError(null);
    try {
      setResult(await speechApi.transcribe(form, mode, abort.current.signal));
      setResultCount((n) => n + 1);
    } catch (err) {
      if (!(err instanceof DOMException && err.name === 'AbortError')) setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="stt-title">
      <h2 id="stt-title">Speech to text</h2>
      <form class="stack" onSubmit={submit}>
        <fieldset class="segmented">
          <legend>Audio</legend>
          <label class={source === 'file' ? 'selected' : ''}>
            <input type="radio" name="stt-source" value="file" checked={source === 'file'} onChange={() => setSource('file')} />
            Upload a file
          </label>
          <label class={source === 'mic' ? 'selected' : ''}>
            <input type="radio" name="stt-source" value="mic" checked={source === 'mic'} onChange={() => setSource('mic')} />
            Record
          </label>
        </fieldset>

        {source === 'file' ? (
          <div class="field">
            <label for="stt-file">Audio file</label>
            <input
              id="stt-file"
              type="file"
              accept="audio/*,video/webm,.wav,.mp3,.flac,.ogg,.opus,.webm,.m4a"
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              aria-describedby="stt-file-hint"
            />
            <p id="stt-file-hint" class="hint">
              WAV, MP3, FLAC, Ogg, WebM or M4A, up to 25 MB.
            </p>
          </div>
        ) : (
          <Recorder onRecorded={setRecording} />
        )}
        {previewUrl && <audio class="preview" controls src={previewUrl} aria-label="The audio to transcribe" />}

        <div class="grid-3">
          <div class="field">
            <label for="stt-model">Model</label>
            <select id="stt-model" value={model} onChange={(e) => setModel(e.currentTarget.value)}>
              {MODELS.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="stt-language">Language</label>
            <input
              id="stt-language"
              type="text"
              placeholder="Detect (e.g. en)"
              value={language}
              onInput={(e) => setLanguage(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="stt-format">Response format</label>
            <select id="stt-format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
              {RESPONSE_FORMATS.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.label}
                </option>
              ))}
            </select>
          </div>
        </div>

        <ErrorNotice error={error} />
        <div class="row wrap">
          <button type="submit" class="button" disabled={busy || !audio}>
            {busy ? 'Transcribing…' : 'Transcribe'}
          </button>
          {busy && (
            <button type="button" class="button secondary" onClick={() => abort.current?.abort()}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {result && (
        <div class="result" aria-live="polite" data-result={resultCount}>
          <Transcript result={result} />
          <CreditsLine credits={result.credits} />
        </div>
      )}
    </section>
  );
}
