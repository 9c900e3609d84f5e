// Turn-taking for voice agents (docs/realtime.md, "Turns"): from the VAD's frames and the
// recognizer's words, when a person started a turn, may be done (EagerEndOfTurn), went on after
// all (TurnResumed) and is done (EndOfTurn). End of turn is decided from more than silence
// (decision #62): the pause since the speech really ended (prosody.ts: the last loud frame, not the
// VAD's late call), weighed by whether the words read as a finished sentence and whether the voice
// fell to its floor at the end. A finished sentence said with a fall ends after 210 ms; one whose
// words are finished but whose pitch stayed up ("We finished the project | ...") waits 700 ms; one
// that trails off on "and", "the", "because" 1.1 s (at eot_threshold 0.7). The end-of-turn
// confidence is the pause over the pause that sentence needs. With an operator's turn model
// (PARLA_TURN_MODEL, decision #74), its answer on the last 8 s of audio replaces the words and the
// pitch once it comes: likely done ends the turn as a final sentence does, unlikely waits as a
// trailing one.
// Deepgram Flux's /v2/listen renders these events (src/compat/deepgram/flux-*.ts).

import { ApiError } from '../../errors.js';
import type { LiveWord, TurnEvent, TurnEventName } from './session-output.js';

export type { TurnEvent, TurnEventName } from './session-output.js';
import { ONSET_FRAMES } from './speech-onset.js';
import { Prosody } from './prosody.js';
import type { TurnModel } from '../../engines/smart-turn/turn-model.js';

export interface TurnSettings {
  /** Confidence at which a turn ends (Flux's eot_threshold, 0.5-0.9, default 0.7). */
  eotThreshold: number;
  /** Confidence for an early, tentative end (eager_eot_threshold, 0.3-0.9), or null for none. */
  eagerEotThreshold: number | null;
  /** Silence (ms) after which a turn ends whatever its words (eot_timeout_ms, default 5000). */
  eotTimeoutMs: number;
}

export const TURN_DEFAULTS: TurnSettings = { eotThreshold: 0.7, eagerEotThreshold: null, eotTimeoutMs: 5000 };

/** A number in plain decimal notation within bounds (a linear check: no "1e3", "0x10", "Infinity"). */
export function turnNumber(field: string, v: unknown, min: number, max: number, integer = false): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new ApiError('INVALID_PARAMETER', {
      message: `${field} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
      details: { field, provided: String(v).slice(0, 100) },
    });
  }
  return n;
}

/**
 * Turn settings from a query or a Configure message, checked as Flux bounds them: eot_threshold
 * 0.5-0.9, eager_eot_threshold 0.3-0.9 and not above it, eot_timeout_ms 500-10000; absent ones
 * keep `base`'s.
 */
export function parseTurnSettings(
  t: { eot_threshold?: unknown; eager_eot_threshold?: unknown; eot_timeout_ms?: unknown },
  base: TurnSettings,
): TurnSettings {
  const eot = t.eot_threshold === undefined ? base.eotThreshold : turnNumber('eot_threshold', t.eot_threshold, 0.5, 0.9);
  const eager =
    t.eager_eot_threshold === undefined ? base.eagerEotThreshold : turnNumber('eager_eot_threshold', t.eager_eot_threshold, 0.3, 0.9);
  if (eager !== null && eager > eot) {
    throw new ApiError('INVALID_PARAMETER', {
      message: 'eager_eot_threshold must not be above eot_threshold.',
      details: { field: 'eager_eot_threshold', provided: String(eager) },
    });
  }
  const timeout = t.eot_timeout_ms === undefined ? base.eotTimeoutMs : turnNumber('eot_timeout_ms', t.eot_timeout_ms, 500, 10_000, true);
  return { eotThreshold: eot, eagerEotThreshold: eager, eotTimeoutMs: timeout };
}

/**
 * How a turn reads so far: `final` (words not trailing, voice fell to its floor), `complete`
 * (finished words, no fall), `open` (one word, no fall), `trailing`; the pause (ms) at which its
 * end-of-turn confidence reaches 1.
 */
export type SentenceState = 'final' | 'complete' | 'open' | 'trailing';
const FULL_CONFIDENCE_PAUSE_MS: Record<SentenceState, number> = { final: 300, complete: 1000, open: 1000, trailing: 1600 };

/** Words after which an English sentence goes on: conjunctions, articles, prepositions, fillers. */
const TRAILING = new Set(
  'and or but so because the a an to of for with in on at from by into about my your his her their our its that which who whose if then than as is are was were be been being am i we you they he she it um uh er erm like just very really not no do does did have has had will would can could should'.split(
    ' ',
  ),
);

/**
 * Whether `text` reads as a finished sentence, one that may go on, or one that plainly trails off;
 * with `fell` (the voice fell to its floor before the pause), words that do not trail are final.
 */
export function sentenceState(text: string, fell = false): SentenceState {
  const words = text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
  const last = words.at(-1);
  if (!last) return 'open';
  if (TRAILING.has(last)) return 'trailing';
  if (fell) return 'final';
  return words.length >= 2 ? 'complete' : 'open';
}

/** The end-of-turn confidence after `pauseMs` of silence following a sentence in `state`. */
export function endOfTurnConfidence(pauseMs: number, state: SentenceState): number {
  return Math.min(1, Math.max(0, pauseMs / FULL_CONFIDENCE_PAUSE_MS[state]));
}

/** Frames of speech after an EagerEndOfTurn that mean the person went on (60 ms: not a click). */
const RESUME_FRAMES = 3;
/** A Update about every this many seconds of a turn (Flux: about every 0.25 s). */
const UPDATE_EVERY_SECONDS = 0.25;
/** The most a VAD calls silence after the speech's last loud frame (its hangover, 100-200 ms). */
const MAX_HANGOVER_MS = 300;
/** Silence before the words are read to weigh the pause (a gap between words is shorter). */
const READ_TEXT_AFTER_MS = 100;
/** The audio a turn model hears (Smart Turn: the last 8 s at 16 kHz). */
const MODEL_AUDIO_SAMPLES = 8 * 16000;
/** A turn model's completion probability from which the pause counts as after a final sentence. */
const MODEL_DONE = 0.5;
/** The longest a pause waits for the model's answer before it is weighed without it. */
const MODEL_WAIT_MS = 500;

/** What the layer needs from the session: the recognizer's words so far, and to end its utterance. */
export interface TurnRecognizer {
  /** The words of the utterance being heard (not final), or null. */
  partial(): Promise<{ transcript: string; words: LiveWord[] } | null>;
  /** Ends the recognizer's utterance: its final words, or null when nothing was said. */
  finalize(): Promise<{ transcript: string; words: LiveWord[]; start: number; end: number } | null>;
}

export class TurnLayer {
  /** Frames seen (the timeline, in frames). */
  private frame = 0;
  private turnIndex = 0;
  private inTurn = false;
  private start = 0;
  private silenceMs = 0;
  private speechRun = 0;
  private state: SentenceState | null = null;
  /** The pause (ms) at which the words are read next. */
  private readAt = 0;
  private sinceUpdate = 0;
  /** Words made final inside this turn (at an EagerEndOfTurn), before what is heard now. */
  private held: { transcript: string; words: LiveWord[] } = { transcript: '', words: [] };
  private eager = false;
  private readonly prosody: Prosody;
  /** The last 8 s of audio (a ring) for the turn model, and how many samples were written in all. */
  private readonly recent: Float32Array | null;
  private written = 0;
  /** The model's verdict on this pause: asked (null until it answers), or not asked yet. */
  private verdict: { pause: number; state: SentenceState | null; failed: boolean } | null = null;
  private pauses = 0;

  constructor(
    private readonly s: TurnSettings,
    private readonly frameSeconds: number,
    private readonly rec: TurnRecognizer,
    private readonly emit: (e: TurnEvent) => void,
    private readonly model: TurnModel | null = null,
  ) {
    this.prosody = new Prosody(frameSeconds);
    this.recent = model ? new Float32Array(MODEL_AUDIO_SAMPLES) : null;
  }

  /** The stream's audio (16 kHz), given before the VAD's frames for it: its level and pitch. */
  audio(pcm: Int16Array): void {
    this.prosody.push(pcm);
    if (!this.recent) return;
    for (let i = 0; i < pcm.length; i++) this.recent[(this.written + i) % MODEL_AUDIO_SAMPLES] = pcm[i]! / 32768;
    this.written += pcm.length;
  }

  /** Asks the model about this pause; its answer is used by the pushes after it arrives. */
  private ask(): void {
    const pause = ++this.pauses;
    this.verdict = { pause, state: null, failed: false };
    const n = Math.min(this.written, MODEL_AUDIO_SAMPLES);
    const audio = new Float32Array(n);
    for (let i = 0; i < n; i++) audio[i] = this.recent![(this.written - n + i) % MODEL_AUDIO_SAMPLES]!;
    this.model!.completion(audio).then(
      (p) => {
        if (this.verdict?.pause === pause) this.verdict.state = p >= MODEL_DONE ? 'final' : 'trailing';
      },
      // Busy or failed: this pause is weighed without the model.
      () => {
        if (this.verdict?.pause === pause) this.verdict.failed = true;
      },
    );
  }

  /** The VAD's frames for the next `seconds` of audio, ending at `now` on the stream's timeline. */
  async push(frames: readonly boolean[], seconds: number, now: number): Promise<void> {
    // A turn starts with 120 ms of speech (longer than the VAD's start-up blip), right after the
    // last one if need be: unlike SpeechStarted, no long silence has to come first.
    let onset: number | null = null;
    for (const speech of frames) {
      this.frame++;
      if (!this.inTurn) {
        this.speechRun = speech ? this.speechRun + 1 : 0;
        if (this.speechRun >= ONSET_FRAMES && onset === null) onset = (this.frame - this.speechRun) * this.frameSeconds;
      }
    }
    if (!this.inTurn && onset !== null) {
      this.inTurn = true;
      this.start = +onset.toFixed(3);
      this.silenceMs = 0;
      this.sinceUpdate = 0;
      this.speechRun = 0;
      await this.send('StartOfTurn', now, 0);
      return;
    }
    if (!this.inTurn) return;
    let resumed = false;
    for (const speech of frames) {
      if (speech) {
        this.silenceMs = 0;
        this.state = null;
        this.verdict = null;
        this.readAt = 0;
        this.speechRun++;
        if (this.eager && this.speechRun >= RESUME_FRAMES) resumed = true;
      } else {
        this.silenceMs += this.frameSeconds * 1000;
        this.speechRun = 0;
      }
    }
    if (resumed) {
      this.eager = false;
      await this.send('TurnResumed', now, 0);
    }
    // The pause runs from the last loud frame once the VAD calls it silence (its hangover would add
    // 100-200 ms); from the VAD's call when that frame is not the end of this speech (a quiet
    // talker after a loud click long before) or in steady noise louder than speech.
    const quietMs = this.prosody.quietSeconds() * 1000;
    const pauseMs =
      this.silenceMs <= 0 ? 0 : quietMs - this.silenceMs <= MAX_HANGOVER_MS ? Math.max(this.silenceMs, quietMs) : this.silenceMs;
    // The words are read when the pause reaches 100 ms, and again every 100 ms while they do not
    // read as final: the recognizer may not have decoded the last word yet when the pause begins.
    if (pauseMs >= READ_TEXT_AFTER_MS && this.state !== 'final' && pauseMs >= this.readAt) {
      const text = this.eager ? this.held.transcript : `${this.held.transcript} ${(await this.rec.partial())?.transcript ?? ''}`;
      this.state = sentenceState(text, this.prosody.fellToFloor());
      this.readAt = pauseMs + READ_TEXT_AFTER_MS;
    }
    if (this.model && pauseMs >= READ_TEXT_AFTER_MS && !this.verdict) this.ask();
    const state = this.weighed(pauseMs);
    const confidence = state === null ? 0 : endOfTurnConfidence(pauseMs, state);
    if (this.silenceMs >= this.s.eotTimeoutMs) return this.endTurn(now, confidence, 'timeout');
    if (state !== null && confidence >= this.s.eotThreshold) return this.endTurn(now, confidence, 'pause');
    if (!this.eager && this.s.eagerEotThreshold !== null && state !== null && confidence >= this.s.eagerEotThreshold) {
      // The words are made final now, so the EndOfTurn that may follow carries the same text.
      await this.hold();
      this.eager = true;
      await this.send('EagerEndOfTurn', now, confidence);
      return;
    }
    this.sinceUpdate += seconds;
    if (this.sinceUpdate >= UPDATE_EVERY_SECONDS) {
      this.sinceUpdate = 0;
      await this.send('Update', now, confidence);
    }
  }

  /**
   * How the pause reads: the model's verdict once it answered; nothing while it is awaited (up to
   * MODEL_WAIT_MS); the words and the pitch without a model, or when it failed or is late.
   */
  private weighed(pauseMs: number): SentenceState | null {
    const v = this.verdict;
    if (!this.model || !v || v.failed) return this.state;
    if (v.state !== null) return v.state;
    return pauseMs < MODEL_WAIT_MS ? null : this.state;
  }

  /** The client ends the turn now (Flux's ForceEndTurn); nothing happens outside a turn. */
  async force(now: number): Promise<void> {
    if (this.inTurn) await this.endTurn(now, 1, 'client');
  }

  /** The stream ends: an open turn ends with what was heard. */
  async close(now: number): Promise<void> {
    if (this.inTurn) await this.endTurn(now, 1, 'close');
  }

  /**
   * Words made final outside the layer (the session gave its recognizer back while a turn was
   * open): the turn keeps them, as it keeps the words of an eager end.
   */
  keep(f: { transcript: string; words: LiveWord[] }): void {
    if (!this.inTurn || !f.transcript) return;
    this.held = {
      transcript: this.held.transcript ? `${this.held.transcript} ${f.transcript}` : f.transcript,
      words: [...this.held.words, ...f.words],
    };
  }

  private async hold(): Promise<void> {
    const f = await this.rec.finalize();
    if (!f || !f.transcript) return;
    this.held = {
      transcript: this.held.transcript ? `${this.held.transcript} ${f.transcript}` : f.transcript,
      words: [...this.held.words, ...f.words],
    };
  }

  private async endTurn(now: number, confidence: number, trigger: NonNullable<TurnEvent['trigger']>): Promise<void> {
    // After an eager end nothing new was said (a resumption clears it): the text stays the same.
    if (!this.eager) await this.hold();
    this.emit({
      event: 'EndOfTurn',
      turnIndex: this.turnIndex,
      start: this.start,
      end: now,
      transcript: this.held.transcript,
      words: this.held.words,
      confidence: +confidence.toFixed(3),
      trigger,
    });
    this.turnIndex++;
    this.inTurn = false;
    this.eager = false;
    this.state = null;
    this.verdict = null;
    this.held = { transcript: '', words: [] };
  }

  private async send(event: TurnEventName, now: number, confidence: number): Promise<void> {
    let transcript = this.held.transcript;
    let words = this.held.words;
    if (!this.eager) {
      const p = await this.rec.partial();
      if (p?.transcript) {
        transcript = transcript ? `${transcript} ${p.transcript}` : p.transcript;
        words = [...words, ...p.words];
      }
    }
    this.emit({ event, turnIndex: this.turnIndex, start: this.start, end: now, transcript, words, confidence: +confidence.toFixed(3) });
  }
}
