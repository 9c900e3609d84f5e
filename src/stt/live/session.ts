// One live transcription stream, whatever its protocol. It puts together the parts of a live
// stream, each with one job: the audio intake (audio-intake.ts: frames in the stream's encoding ->
// 16 kHz), the credits (../live-credits.ts: grown as audio arrives, settled once), endpointing
// (endpointing.ts: the VAD's frames -> onsets, utterance ends, interim reads), the recognizer
// (recognizer.ts: held only while audio flows, given back after `recognizerIdleMs` without audio)
// and the results (live-results.ts: an utterance as transcript, words, confidence); itself it keeps
// the order of the work (one queue), backpressure, the idle and length limits and the control
// messages ({"type": "KeepAlive" | "Finalize" | "CloseStream"}, the same in every protocol). Out go
// protocol-neutral events (session-output.ts) that a protocol renders as its messages: the native
// one (src/realtime/native-output.ts, docs/realtime.md) or Deepgram's (src/compat/deepgram/).

import type { SttStream, RecognizedUtterance } from '../../engines/engine.js';
import { activeTurnModel } from '../../engines/smart-turn/turn-model.js';
import { createFrameVad, type FrameVad, VAD_FRAME_SECONDS } from '../../audio/live-vad.js';
import type { RealtimeParams } from './params.js';
import type { LiveResult, SessionEnd, SessionOutput } from './session-output.js';
import { AudioIntake } from './audio-intake.js';
import type { LiveCredits } from '../live-credits.js';
import { Endpointer } from './endpointing.js';
import { LiveRecognizer } from './recognizer.js';
import { TurnLayer, type TurnSettings } from './turns.js';
import { describeType, isOverload, parseControl } from './session-errors.js';
import { liveResult, renderUtterance, type RenderedUtterance } from './live-results.js';

export interface SessionOptions {
  requestId: string;
  params: RealtimeParams;
  language: string;
  /** Id of the engine serving the stream, told to the client when the stream opens. */
  engine: string;
  /** The recognizer taken at the upgrade, or null: one is taken (reopen) when the first audio arrives. */
  stream: SttStream | null;
  /** Takes another recognizer when audio resumes after the first was given back (LiveStream.reopen); without it the stream keeps its first. */
  reopen?: (keywords: readonly string[], waitMs?: number) => Promise<SttStream>;
  /** No audio for this long gives the recognizer back (KeepAlive does not count); default 2 s. */
  recognizerIdleMs?: number;
  /** The stream's credits (SttService.openLive): grown while audio arrives, settled once at the end. */
  credits: LiveCredits;
  idleTimeoutMs: number;
  maxSessionSeconds: number;
  /**
   * false: no voice activity detection at all (no speech events, no endpointing, no interim
   * results); utterances end only when the client says (Finalize). OpenAI Realtime's
   * `turn_detection: null`, where the client commits. Default true.
   */
  vad?: boolean;
  /** Turn-taking (turns.ts): the session reports turns through SessionOutput.turn. */
  turns?: TurnSettings;
  onEnd: (summary: { seconds: number; credits: number }) => void;
}

/** Backpressure: the socket stops being read above this much queued audio, and is read again below the other. */
const PAUSE_ABOVE_SECONDS = 5;
const RESUME_BELOW_SECONDS = 1;

export class RealtimeSession {
  private readonly intake: AudioIntake;
  private readonly endpoints: Endpointer;
  private vad: FrameVad | null = null;
  private readonly turns: TurnLayer | null;
  private chain: Promise<void> = Promise.resolve();
  /** 16 kHz samples fed to the recognizer (the stream's timeline). */
  private samples = 0;
  private pendingSamples = 0;
  private paused = false;
  private receivedSeconds = 0;
  private utterances = 0;
  private ended = false;
  /** Set when queued audio must not be recognized any more (credits ran out, client gone). */
  private discard = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly maxTimer: NodeJS.Timeout;
  private readonly recognizer: LiveRecognizer;
  private recognizerTimer: NodeJS.Timeout | null = null;
  /** Counts audio frames, so a release queued behind audio that arrived since is skipped. */
  private audioFrames = 0;
  /** Seconds of received audio the bill stops at (set when the stream ends without recognizing the rest). */
  private billCap = Infinity;
  /** Speech (any audio without a VAD) reached the recognizer since its last final: an utterance is open. */
  private spoken = false;

  constructor(
    private readonly t: SessionOutput,
    private readonly o: SessionOptions,
  ) {
    this.intake = new AudioIntake(o.params, {
      audio: (at16k, seconds) => this.accept(at16k, seconds),
      invalid: (message) => {
        this.t.error('INVALID_AUDIO', message);
        void this.end('invalid_audio');
      },
    });
    this.endpoints = new Endpointer(o.params, VAD_FRAME_SECONDS);
    this.recognizer = new LiveRecognizer(o.stream, o.reopen ?? null, o.params.keywords);
    this.turns = o.turns
      ? new TurnLayer(
          o.turns,
          VAD_FRAME_SECONDS,
          {
            partial: async () => {
              const p = await this.recognizer.partial();
              return p ? this.render(p) : null;
            },
            finalize: async () => {
              const u = await this.recognizer.finalizeUtterance();
              this.endpoints.finalized(u ? u.end : null);
              await this.boundary();
              if (!u) return null;
              this.utterances++;
              // A turn's words are also a final result, for the protocols that show both (native turns=true).
              this.t.results(this.results(u, true, true, false));
              return { ...this.render(u), start: u.start, end: u.end };
            },
          },
          (e) => this.t.turn?.(e),
          activeTurnModel(),
        )
      : null;
    this.maxTimer = setTimeout(() => void this.end('max_duration'), o.maxSessionSeconds * 1000);
    this.maxTimer.unref();
    this.touch();
    this.armRelease();
  }

  /** Tells the client the stream is open; audio that arrives before the VAD is ready waits for it in the queue. */
  start(): Promise<void> {
    this.t.opened({ requestId: this.o.requestId, params: this.o.params, language: this.o.language, engine: this.o.engine });
    if (this.o.vad === false) return this.chain;
    return this.enqueue(async () => {
      this.vad = await createFrameVad();
    });
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      // Idle is the client sending nothing while nothing is left to do: a stream still working
      // through its backlog (or waiting for a recognizer for it) is not idle, and a paused socket
      // cannot hear the client's KeepAlive.
      if (this.pendingSamples > 0) return this.touch();
      void this.end('idle_timeout');
    }, this.o.idleTimeoutMs);
    this.idleTimer.unref();
  }

  /** (Re)starts the countdown after which a stream without audio gives its recognizer back. */
  private armRelease(): void {
    if (!this.recognizer.detachable) return;
    if (this.recognizerTimer) clearTimeout(this.recognizerTimer);
    const frames = this.audioFrames;
    this.recognizerTimer = setTimeout(() => {
      this.recognizerTimer = null;
      // Behind the audio already queued: it is recognized first, then the utterance is closed.
      void this.enqueue(async () => {
        if (this.ended || frames !== this.audioFrames || !this.recognizer.attached) return;
        await this.detach();
      });
    }, this.o.recognizerIdleMs ?? 2000);
    this.recognizerTimer.unref();
  }

  /** Gives the recognizer back; the utterance it held ends as a long silence would end it. */
  private async detach(): Promise<void> {
    const u = await this.recognizer.detach();
    this.spoken = false;
    this.endpoints.finalized(u ? u.end : null);
    if (u) {
      this.utterances++;
      this.t.results(this.results(u, true, true, false));
      // An open turn keeps these words: it ends later (ForceEndTurn, the timeout, the stream's end) with them.
      this.turns?.keep(this.render(u));
    }
  }

  /**
   * Boosts other keywords from the next utterance (decision #76: at once outside one); false when this
   * stream cannot take another recognizer. Asks until then cost one change (the latest list wins);
   * audio arriving meanwhile waits in the queue (bounded by the backpressure).
   */
  setKeywords(keywords: readonly string[]): boolean {
    if (!this.recognizer.detachable || this.ended) return false;
    if (this.recognizer.want(keywords)) void this.enqueue(async () => (this.spoken ? undefined : this.boundary()));
    return true;
  }

  /** At an utterance boundary (also while the stream ends: queued audio is recognized as asked): the next utterance boosts the keywords asked for. */
  private async boundary(): Promise<void> {
    this.spoken = false;
    if (this.recognizer.rekey(this.now()) && this.recognizer.attached) await this.detach();
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(job).catch((err: unknown) => this.fail(err));
    return this.chain;
  }

  /** A binary frame of audio in the stream's encoding. */
  onAudio(bytes: Buffer): void {
    if (this.ended) return;
    this.touch();
    this.audioFrames++;
    this.armRelease();
    this.intake.write(bytes);
  }

  /** Queues 16 kHz audio for recognition; `seconds` is its length as received (billed). */
  private accept(audio: Int16Array | Promise<Int16Array>, seconds: number): void {
    this.receivedSeconds += seconds;
    const receivedAtEnd = this.receivedSeconds;
    const backlog = Math.round(seconds * 16000);
    this.pendingSamples += backlog;
    if (!this.paused && this.pendingSamples / 16000 > PAUSE_ABOVE_SECONDS) {
      this.paused = true;
      this.t.pause();
    }
    void this.enqueue(async () => {
      // Credits are checked per frame, so a burst is recognized up to the last paid-for second.
      try {
        const at16k = await audio;
        if (!this.discard && !(await this.o.credits.cover(receivedAtEnd))) this.outOfCredits();
        if (!this.discard) {
          try {
            await this.process(at16k);
          } catch (err) {
            // Audio that could not be recognized is not billed.
            if (isOverload(err)) this.billCap = Math.min(this.billCap, receivedAtEnd - seconds);
            throw err;
          }
        }
      } finally {
        this.pendingSamples -= backlog;
      }
      // A stream still working through its backlog is not idle.
      if (!this.ended) this.touch();
      if (this.paused && this.pendingSamples / 16000 < RESUME_BELOW_SECONDS) {
        this.paused = false;
        this.t.resume();
      }
    });
  }

  /**
   * Drops what the recognizer heard since the last final result, unrecognized (OpenAI's
   * input_audio_buffer.clear). The audio was received, so it stays billed.
   */
  clear(): void {
    if (this.ended) return;
    this.touch();
    void this.enqueue(async () => {
      await this.recognizer.finalizeUtterance();
      this.endpoints.cleared();
      await this.boundary();
    });
  }

  /** Ends the current turn now (Deepgram Flux's ForceEndTurn); nothing outside a turn. */
  forceEndTurn(): void {
    if (this.ended || !this.turns) return;
    this.touch();
    void this.enqueue(() => this.turns!.force(this.now()));
  }

  /** A text frame: a control message. */
  onText(text: string): void {
    if (this.ended) return;
    this.touch();
    const msg = parseControl(text);
    if (msg === undefined) return this.t.error('INVALID_REQUEST', 'Control messages are JSON objects such as {"type":"KeepAlive"}.');
    switch (msg?.type) {
      case 'KeepAlive':
        return;
      case 'Finalize':
        void this.enqueue(() => this.finalizeUtterance(false, true));
        return;
      case 'CloseStream':
        void this.end('client_closed');
        return;
      case 'ForceEndTurn':
        this.forceEndTurn();
        return;
      default:
        this.t.error('INVALID_REQUEST', `Unknown message type ${describeType(msg?.type)}; use KeepAlive, Finalize or CloseStream.`);
    }
  }

  private outOfCredits(): void {
    this.t.error('INSUFFICIENT_CREDITS', 'The credit balance ran out; the audio received so far is billed and the stream closes.');
    // Recognize nothing more; the credits bill no further than what was paid for.
    this.discard = true;
    void this.end('insufficient_credits');
  }

  private now(): number {
    return this.samples / 16000;
  }

  private async process(pcm: Int16Array): Promise<void> {
    await this.recognizer.write(pcm, this.now());
    if (!this.vad) {
      this.spoken = true;
      this.samples += pcm.length;
      return;
    }
    this.turns?.audio(pcm);
    const frames = await this.vad.process(pcm);
    if (frames.includes(true)) this.spoken = true;
    const step = this.endpoints.push(frames, pcm.length / 16000);
    this.samples += pcm.length;
    if (this.turns) await this.turns.push(frames, pcm.length / 16000, this.now());
    for (const timestamp of step.onsets) this.t.speechStarted(timestamp);
    if (step.endUtterance) {
      await this.finalizeUtterance(true, false);
    } else if (step.readInterim) {
      const partial = await this.recognizer.partial();
      if (partial && this.endpoints.interim(this.render(partial).transcript)) this.t.results(this.results(partial, false, false, false));
    }
    const lastWordEnd = this.endpoints.utteranceEndDue(this.now());
    if (lastWordEnd !== null) this.t.utteranceEnd(lastWordEnd);
  }

  private render(u: RecognizedUtterance): RenderedUtterance {
    return renderUtterance(u, this.o.params);
  }

  private results(u: RecognizedUtterance | null, isFinal: boolean, speechFinal: boolean, fromFinalize: boolean): LiveResult {
    return liveResult(u, this.now(), this.o.params, { isFinal, speechFinal, fromFinalize });
  }

  private async finalizeUtterance(speechFinal: boolean, fromFinalize: boolean): Promise<void> {
    const u = await this.recognizer.finalizeUtterance();
    this.endpoints.finalized(u ? u.end : null);
    await this.boundary();
    if (!u && !fromFinalize) return;
    if (u) this.utterances++;
    this.t.results(this.results(u, true, speechFinal, fromFinalize));
  }

  private fail(err: unknown): void {
    // No recognizer within the bound (audio resumed after the recognizer was given back, or a
    // keyterm switch): the queued audio is dropped unbilled at once, also while ending (decision #97).
    const overloaded = isOverload(err);
    if (overloaded) this.discard = true;
    if (this.ended) return;
    if (overloaded) {
      this.t.error('SERVICE_OVERLOADED', 'Every speech recognizer is busy with other streams; the stream closes. Reconnect shortly.');
      void this.end('overloaded');
      return;
    }
    this.t.error('INTERNAL_ERROR', 'The recognizer failed; the stream closes.');
    void this.end('internal_error');
  }

  /** Flushes the last result, bills once, tells the summary and closes. Safe to call twice. */
  async end(why: SessionEnd, opts: { clientGone?: boolean } = {}): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (opts.clientGone) this.discard = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.recognizerTimer) clearTimeout(this.recognizerTimer);
    clearTimeout(this.maxTimer);
    // Encoded audio already received is decoded and queued before the flush (unless nobody listens).
    await this.intake.finish(opts.clientGone === true);
    // Let queued audio be recognized first (unless the client is gone), then flush.
    await this.chain.catch(() => undefined);
    if (!opts.clientGone) {
      try {
        const tail = await this.intake.tail();
        // The resampler's last few milliseconds are not worth taking a recognizer again for.
        if (tail.length && !this.discard && this.recognizer.attached) await this.process(tail).catch(() => undefined);
        if (this.turns) {
          // An open turn ends with what was heard (its final result comes with it).
          await this.turns.close(this.now());
        } else {
          const u = await this.recognizer.finalizeUtterance();
          if (u) {
            this.utterances++;
            this.t.results(this.results(u, true, true, false));
          }
        }
      } catch {
        // A failed flush still bills and closes.
      }
    }
    await this.recognizer.close().catch(() => undefined);
    this.intake.close();
    this.vad?.free();
    const bill = await this.o.credits.settle(Math.min(this.receivedSeconds, this.billCap));
    if (!opts.clientGone) {
      // A paused socket would not read the client's close frame (the handshake would hang).
      if (this.paused) {
        this.paused = false;
        this.t.resume();
      }
      this.t.summary({ duration: bill.seconds, billedSeconds: bill.billedSeconds, credits: bill.credits, utterances: this.utterances });
      this.t.close(why);
    }
    this.o.onEnd({ seconds: bill.seconds, credits: bill.credits });
  }
}
