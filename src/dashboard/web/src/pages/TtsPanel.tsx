// Playground, text-to-speech: the real POST /api/v1/tts/generate (or .../with-timestamps, the same
// file and price with word timings) with the session, the audio played in the page with the word
// being spoken highlighted, offered as a download, and the credits it cost.

import { useEffect, useRef, useState } from 'preact/hooks';
import { speechApi, type KeyMode, type Language, type SpeechResult, type SpokenWord, type TtsModel, type VoiceOption } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { CreditsLine } from '../components/CreditsLine';
import { useObjectUrl } from '../hooks';

const FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
const MAX_TEXT = 5000;
const SAMPLE_TEXT =
  'Hello! This is Parla speaking. <break time="500ms"/> I can pause, <laugh> laugh, and even <whisper>whisper a secret</whisper>.';

/** The tags Aura models read inside the text (docs/interface.md): what a button inserts, and a label. */
const TAGS: ReadonlyArray<{ label: string; before: string; after?: string }> = [
  { label: 'Pause 500 ms', before: '<break time="500ms"/>' },
  { label: 'Pause 1 s', before: '<break time="1s"/>' },
  { label: 'laugh', before: '<laugh>' },
  { label: 'chuckle', before: '<chuckle>' },
  { label: 'sigh', before: '<sigh>' },
  { label: 'gasp', before: '<gasp>' },
  { label: 'yawn', before: '<yawn>' },
  { label: 'cough', before: '<cough>' },
  { label: 'whisper…', before: '<whisper>', after: '</whisper>' },
  { label: 'emphasis…', before: '<emphasis>', after: '</emphasis>' },
];

const isAura = (model: string) => model.startsWith('aura-');

/** Keeps `current` when the new list still has it, else picks the preferred value or the first. */
function pick<T>(list: readonly T[], key: (t: T) => string, current: string, preferred?: string): string {
  if (list.some((x) => key(x) === current)) return current;
  if (preferred !== undefined && list.some((x) => key(x) === preferred)) return preferred;
  return list[0] ? key(list[0]) : '';
}

export function TtsPanel({ mode, plan }: { mode: KeyMode; plan: string }) {
  const [models, setModels] = useState<TtsModel[]>([]);
  const [model, setModel] = useState('aura-prime');
  const [languages, setLanguages] = useState<Language[]>([]);
  const [language, setLanguage] = useState('en-US');
  const [voices, setVoices] = useState<VoiceOption[]>([]);
  const [voiceKey, setVoiceKey] = useState('');
  const [speed, setSpeed] = useState(1);
  const [pitch, setPitch] = useState(0);
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('wav');
  const [text, setText] = useState(SAMPLE_TEXT);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [catalogError, setCatalogError] = useState<unknown>(null);
  const [result, setResult] = useState<(SpeechResult & { words?: SpokenWord[] }) | null>(null);
  const [withWords, setWithWords] = useState(true);
  const audioUrl = useObjectUrl(result?.audio ?? null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const player = useRef<HTMLAudioElement>(null);

  useEffect(() => {
    speechApi.models(mode).then((r) => setModels(r.models), setCatalogError);
  }, [mode]);

  // The language list follows the model, and the voice list follows both: Aura names are
  // localized per language, Flash voices each belong to one language.
  useEffect(() => {
    let current = true;
    speechApi.languages(model, mode).then((r) => {
      if (!current) return;
      setLanguages(r.languages);
      setLanguage((l) => pick(r.languages, (x) => x.code, l, 'en-US'));
    }, setCatalogError);
    return () => {
      current = false;
    };
  }, [model, mode]);

  useEffect(() => {
    if (!languages.some((l) => l.code === language)) return undefined;
    let current = true;
    speechApi.voices(model, language, mode).then((list) => {
      if (!current) return;
      setVoices(list);
      setVoiceKey((v) => pick(list, (x) => x.id ?? x.name, v));
    }, setCatalogError);
    return () => {
      current = false;
    };
  }, [model, language, languages, mode]);

  const voice = voices.find((v) => (v.id ?? v.name) === voiceKey);
  const preview = useRef<HTMLAudioElement | null>(null);

  // The service's public voice sample (synthesized once, then cached; it costs no credits).
  const playPreview = () => {
    if (!voice) return;
    const url = `/api/v1/voices/${encodeURIComponent(voice.id ?? voice.name)}/preview?language=${encodeURIComponent(language)}&model=${encodeURIComponent(model)}`;
    preview.current?.pause();
    preview.current = new Audio(url);
    preview.current.play().catch((err: unknown) => setError(err));
  };
  useEffect(() => () => preview.current?.pause(), []);
  const allowed = (m: TtsModel) => !m.plans || m.plans.includes(plan);

  const insertTag = (before: string, after = '') => {
    const el = textarea.current;
    if (!el) return;
    const { selectionStart: s, selectionEnd: e, value } = el;
    const next = value.slice(0, s) + before + value.slice(s, e) + after + value.slice(e);
    setText(next);
    // The caret goes where typing continues: inside an empty pair of tags, else after the insert.
    const caret = s + before.length + (e - s) + (after && e > s ? after.length : 0);
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(caret, caret);
    });
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!voice) return;
    setBusy(true);
    setError(null);
    try {
      const req = { text, voice: voice.name, model, language, speed, pitch, format };
      setResult(withWords ? await speechApi.speakWithTimestamps(req, mode) : await speechApi.speak(req, mode));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const markup = isAura(model);
  return (
    <section class="card" aria-labelledby="tts-title">
      <h2 id="tts-title">Text to speech</h2>
      <ErrorNotice error={catalogError} />
      <form class="stack" onSubmit={submit}>
        <div class="field">
          <label for="tts-text">Text</label>
          <textarea
            id="tts-text"
            ref={textarea}
            rows={5}
            maxLength={MAX_TEXT}
            required
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            aria-describedby="tts-text-hint"
          />
          <div id="tts-text-hint" class="hint">
            {markup ? (
              <>
                <span>
                  Tags: a pause is <code>{'<break time="500ms"/>'}</code> or <code>{'<break time="1.5s"/>'}</code> (up to 20 s); expressions
                  are <code>{'<laugh>'}</code>, <code>{'<chuckle>'}</code>, <code>{'<sigh>'}</code>, <code>{'<gasp>'}</code>,{' '}
                  <code>{'<yawn>'}</code>, <code>{'<cough>'}</code>, <code>{'<whisper>…</whisper>'}</code> and{' '}
                  <code>{'<emphasis>…</emphasis>'}</code>.
                </span>
                <span class="count">
                  {text.length} / {MAX_TEXT}
                </span>
              </>
            ) : (
              <>
                <span>Rapid models read plain text: break and expression tags work with the Aura models only.</span>
                <span class="count">
                  {text.length} / {MAX_TEXT}
                </span>
              </>
            )}
          </div>
          {markup && (
            <div class="tag-buttons" role="group" aria-label="Insert a tag at the cursor">
              {TAGS.map((t) => (
                <button key={t.label} type="button" class="chip" onClick={() => insertTag(t.before, t.after)}>
                  {t.label}
                </button>
              ))}
            </div>
          )}
        </div>

        <div class="grid-3">
          <div class="field">
            <label for="tts-model">Model</label>
            <select id="tts-model" value={model} onChange={(e) => setModel(e.currentTarget.value)}>
              {(models.length ? models : [{ id: model, name: model, description: '', languages: 0 }]).map((m) => (
                <option key={m.id} value={m.id} disabled={!allowed(m)}>
                  {m.name}
                  {allowed(m) ? '' : ` (not on the ${plan} plan)`}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="tts-language">Language</label>
            <select id="tts-language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
              {languages.map((l) => (
                <option key={l.code} value={l.code}>
                  {l.name}
                  {l.region ? ` (${l.region})` : ''} · {l.code}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="tts-voice">Voice</label>
            <div class="select-with-button">
              <select id="tts-voice" value={voiceKey} onChange={(e) => setVoiceKey(e.currentTarget.value)}>
                {voices.map((v) => (
                  // Premium voices stay selectable: whether the plan has them is the service's answer to give.
                  <option key={v.id ?? v.name} value={v.id ?? v.name}>
                    {v.name} · {v.gender}
                    {v.premium ? ' · premium' : ''}
                  </option>
                ))}
              </select>
              <button
                type="button"
                class="button secondary icon"
                onClick={playPreview}
                disabled={!voice}
                aria-label={voice ? `Hear a sample of ${voice.name}` : 'Hear a sample of the voice'}
                title="Hear a sample (free)"
              >
                <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
                  <path d="M4 2.5v11l9-5.5z" fill="currentColor" />
                </svg>
              </button>
            </div>
          </div>
          <div class="field">
            <label for="tts-speed">
              Speed <output for="tts-speed">{speed.toFixed(2)}×</output>
            </label>
            <input
              id="tts-speed"
              type="range"
              min={0.5}
              max={2}
              step={0.05}
              value={speed}
              onInput={(e) => setSpeed(Number(e.currentTarget.value))}
            />
          </div>
          <div class="field">
            <label for="tts-pitch">
              Pitch{' '}
              <output for="tts-pitch">
                {pitch > 0 ? '+' : ''}
                {pitch} semitones
              </output>
            </label>
            <input
              id="tts-pitch"
              type="range"
              min={-20}
              max={20}
              step={1}
              value={pitch}
              onInput={(e) => setPitch(Number(e.currentTarget.value))}
            />
          </div>
          <div class="field">
            <label for="tts-format">Format</label>
            <select id="tts-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as (typeof FORMATS)[number])}>
              {FORMATS.map((f) => (
                <option key={f} value={f}>
                  {f.toUpperCase()}
                </option>
              ))}
            </select>
          </div>
        </div>

        <label class="checkbox">
          <input id="tts-words" type="checkbox" checked={withWords} onChange={(e) => setWithWords(e.currentTarget.checked)} />
          Word timings: highlight each word while it is spoken (same audio and price)
        </label>

        <ErrorNotice error={error} />
        <div class="row wrap">
          <button type="submit" class="button" disabled={busy || !voice || text.trim() === ''}>
            {busy ? 'Synthesizing…' : 'Speak'}
          </button>
          <span class="muted small">
            Billed to your {mode} credits, like an API request with a {mode} key.
          </span>
        </div>
      </form>

      {result && audioUrl && (
        <div class="result" aria-live="polite">
          <audio id="tts-audio" ref={player} controls src={audioUrl} />
          {result.words && <SpokenWords words={result.words} player={player} />}
          <div class="row wrap">
            <a class="button secondary" href={audioUrl} download={result.fileName}>
              Download {result.fileName.split('.').pop()?.toUpperCase()}
            </a>
            <CreditsLine
              credits={result.credits}
              extra={result.processingMs !== null ? `${result.processingMs} ms to synthesize` : undefined}
            />
          </div>
        </div>
      )}
    </section>
  );
}

/** The index of the word being spoken at `t` seconds, or -1 (before the first, in a pause, after the last). */
function wordAt(words: SpokenWord[], t: number): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid]!.start <= t) lo = mid + 1;
    else hi = mid;
  }
  const i = lo - 1;
  return i >= 0 && t < words[i]!.end ? i : -1;
}

/**
 * The text's words, the one being spoken highlighted while the audio plays (read every animation
 * frame: the audio element's timeupdate comes only every ~250 ms, slower than a word). A click on a
 * word plays from it.
 */
function SpokenWords({ words, player }: { words: SpokenWord[]; player: { current: HTMLAudioElement | null } }) {
  const [current, setCurrent] = useState(-1);
  useEffect(() => {
    const audio = player.current;
    if (!audio) return undefined;
    let frame = 0;
    const tick = () => {
      setCurrent(wordAt(words, audio.currentTime));
      if (!audio.paused && !audio.ended) frame = requestAnimationFrame(tick);
    };
    const start = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(tick);
    };
    const stop = () => {
      cancelAnimationFrame(frame);
      setCurrent(audio.ended ? -1 : wordAt(words, audio.currentTime));
    };
    audio.addEventListener('play', start);
    audio.addEventListener('pause', stop);
    audio.addEventListener('ended', stop);
    audio.addEventListener('seeked', tick);
    setCurrent(-1);
    return () => {
      cancelAnimationFrame(frame);
      audio.removeEventListener('play', start);
      audio.removeEventListener('pause', stop);
      audio.removeEventListener('ended', stop);
      audio.removeEventListener('seeked', tick);
    };
  }, [words, player]);
  const playFrom = (w: SpokenWord) => {
    const audio = player.current;
    if (!audio) return;
    audio.currentTime = w.start;
    void audio.play().catch(() => undefined);
  };
  return (
    <p class="spoken-words" data-testid="spoken-words" role="group" aria-label="Words, highlighted as they are spoken">
      {words.map((w, i) => (
        // biome-ignore lint/a11y/useKeyWithClickEvents: a click on a word is a mouse shortcut; the audio element's controls are the keyboard path.
        // biome-ignore lint/a11y/noStaticElementInteractions: as above, the word is text first and a seek shortcut second.
        <span
          key={i}
          class={i === current ? 'spoken-word speaking' : 'spoken-word'}
          aria-current={i === current ? 'true' : undefined}
          data-start={w.start}
          data-end={w.end}
          title={`${w.start.toFixed(2)}-${w.end.toFixed(2)} s`}
          onClick={() => playFrom(w)}
        >
          {w.word}
        </span>
      ))}
    </p>
  );
}
