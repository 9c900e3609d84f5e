// One live transcription stream, whatever its protocol: audio in (linear16 at any rate, or Opus)
// -> resampled to 16 kHz -> fed to the recognizer and to the VAD; the VAD's silences end
// utterances (endpointing); credits held as audio arrives, settled once; idle and length limits.
// Out go protocol-neutral events (session-output.ts: opened, speech started, interim and final
// results, utterance end, error, summary, close and why) that a protocol renders as its messages:
// the native one (native-output.ts, docs/realtime.md) or Deepgram's (src/compat/deepgram/).
// Control messages ({"type": "KeepAlive" | "Finalize" | "CloseStream"}) are the same in both.

import { exceedsJsonDepth } from '../edge/json-depth.js';
import type { SttStream, RecognizedUtterance } from '../engines/engine.js';
import type { BillableWork } from '../accounts/billing.js';
import { billableSeconds } from '../accounts/pricing.js';
import { ApiError } from '../errors.js';
import { ThreadResampler } from './thread-resampler.js';
import { buildTranscript } from '../stt/transcript.js';
import type { RealtimeParams } from './params.js';
import { Vad } from './vad.js';
import { SpeechOnsets } from './speech-onset.js';
import { OpusDecoder } from './opus-decoder.js';
import type { LiveResult, SessionEnd, SessionOutput } from './session-output.js';

// The native protocol's renderer, re-exported for the callers that knew them here.
export { CLOSE, NativeOutput, type Transport } from './native-output.js';

export interface SessionOptions {
  requestId: string;
  params: RealtimeParams;
  language: string;
  /** Id of the engine serving the stream, told to the client when the stream opens. */
  engine: string;
  stream: SttStream & { inSpeech?: boolean };
  /** The stream's credits: held at the upgrade, grown while audio arrives, settled once at the end. */
  work: BillableWork;
  /** Whole seconds of audio the hold covers when the stream opens. */
  heldSeconds: number;
  creditsPerSecond: number;
  idleTimeoutMs: number;
  maxSessionSeconds: number;
  /** Seconds of audio the hold grows by while streaming. */
  holdBlockSeconds: number;
  /** How often the hold's lease is renewed when no audio grows it (a silent stream on KeepAlive). */
  holdRefreshMs?: number;
  onEnd: (summary: { seconds: number; credits: number }) => void;
}

/**
 * Interim results: until the first one, the hypothesis is read every INTERIM_FIRST_SECONDS of
 * speech (reading it costs well under a millisecond), so the first word shows as soon as the
 * recognizer has it; then every INTERIM_EVERY_SECONDS.
 */
const INTERIM_FIRST_SECONDS = 0.1;
const INTERIM_EVERY_SECONDS = 0.5;
const PAUSE_ABOVE_SECONDS = 5;
const RESUME_BELOW_SECONDS = 1;

export class RealtimeSession {
  private readonly resampler: ThreadResampler | null;
  private readonly opus: OpusDecoder | null;
  private vad: Vad | null = null;
  private readonly onsets = new SpeechOnsets(Vad.frameSeconds());
  private chain: Promise<void> = Promise.resolve();
  private carryByte: number | null = null;
  /** 16 kHz samples fed to the recognizer (the stream's timeline). */
  private samples = 0;
  private pendingSamples = 0;
  private paused = false;
  private receivedSeconds = 0;
  private heldSeconds: number;
  private inSpeech = false;
  private silenceSeconds = 0;
  private sinceInterim = 0;
  private lastInterim = '';
  private lastWordEnd: number | null = null;
  private utteranceEndSent = true;
  private utterances = 0;
  private ended = false;
  /** Set when queued audio must not be recognized any more (credits ran out, client gone). */
  private discard = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly maxTimer: NodeJS.Timeout;
  private readonly holdTimer: NodeJS.Timeout;

  constructor(
    private readonly t: SessionOutput,
    private readonly o: SessionOptions,
  ) {
    const linear = o.params.encoding === 'linear16';
    this.resampler = !linear || o.params.sampleRate === 16000 ? null : new ThreadResampler(o.params.sampleRate, 16000);
    this.opus = linear
      ? null
      : new OpusDecoder(
          (pcm) => this.accept(pcm, pcm.length / 16000),
          (message) => {
            this.t.error('INVALID_AUDIO', message);
            void this.end('invalid_audio');
          },
        );
    this.heldSeconds = o.heldSeconds;
    this.maxTimer = setTimeout(() => void this.end('max_duration'), o.maxSessionSeconds * 1000);
    this.maxTimer.unref();
    // Unsettled holds expire (a crashed node's credits come back); a live stream keeps its hold alive.
    this.holdTimer = setInterval(() => void this.o.work.hold.extend(0).catch(() => undefined), o.holdRefreshMs ?? 5 * 60_000);
    this.holdTimer.unref();
    this.touch();
  }

  /** Tells the client the stream is open; audio that arrives before the VAD is ready waits for it in the queue. */
  start(): Promise<void> {
    this.t.opened({ requestId: this.o.requestId, params: this.o.params, language: this.o.language, engine: this.o.engine });
    return this.enqueue(async () => {
      this.vad = await Vad.create(2);
    });
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.end('idle_timeout'), this.o.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(job).catch((err: unknown) => this.fail(err));
    return this.chain;
  }

  /** A binary frame of audio in the stream's encoding. */
  onAudio(bytes: Buffer): void {
    if (this.ended) return;
    this.touch();
    if (this.opus) return this.opus.write(bytes);
    let buf = bytes;
    if (this.carryByte !== null) {
      buf = Buffer.concat([Buffer.from([this.carryByte]), bytes]);
      this.carryByte = null;
    }
    if (buf.length % 2 === 1) {
      this.carryByte = buf[buf.length - 1]!;
      buf = buf.subarray(0, buf.length - 1);
    }
    if (buf.length === 0) return;
    const pcm = new Int16Array(buf.length / 2);
    for (let i = 0; i < pcm.length; i++) pcm[i] = buf.readInt16LE(i * 2);
    const seconds = pcm.length / this.o.params.sampleRate;
    // Resampling starts now on its thread; the queue picks the result up in order.
    const at16k = this.resampler ? this.resampler.push(pcm) : pcm;
    // A failure is seen where the queue awaits it; until then it must not count as unhandled.
    if (at16k instanceof Promise) at16k.catch(() => undefined);
    this.accept(at16k, seconds);
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
        await this.ensureCredits(receivedAtEnd);
        if (!this.discard) await this.process(at16k);
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

  /** A text frame: a control message. */
  onText(text: string): void {
    if (this.ended) return;
    this.touch();
    let msg: { type?: unknown };
    try {
      // The HTTP edge's depth cap (decisions on hostile input, src/http/json-body.ts): a control
      // message nested thousands deep is refused in one linear scan instead of being parsed.
      if (exceedsJsonDepth(text)) throw new SyntaxError('too deep');
      msg = JSON.parse(text) as { type?: unknown };
    } catch {
      this.t.error('INVALID_REQUEST', 'Control messages are JSON objects such as {"type":"KeepAlive"}.');
      return;
    }
    switch (msg?.type) {
      case 'KeepAlive':
        return;
      case 'Finalize':
        void this.enqueue(() => this.finalizeUtterance(false, true));
        return;
      case 'CloseStream':
        void this.end('client_closed');
        return;
      default:
        this.t.error('INVALID_REQUEST', `Unknown message type ${describeType(msg?.type)}; use KeepAlive, Finalize or CloseStream.`);
    }
  }

  /**
   * Grows the hold so it covers every started second received so far: a block at a time, then
   * smaller steps when the balance is short, so the last credits are usable too.
   */
  private async ensureCredits(upTo: number): Promise<void> {
    while (!this.discard && billableSeconds(upTo) > this.heldSeconds) {
      const need = billableSeconds(upTo) - this.heldSeconds;
      let step = Math.max(need, this.o.holdBlockSeconds);
      for (;;) {
        try {
          await this.o.work.hold.extend(step * this.o.creditsPerSecond);
          this.heldSeconds += step;
          break;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 'INSUFFICIENT_CREDITS')) throw err;
          if (step > need) {
            step = Math.max(need, Math.floor(step / 2));
            continue;
          }
          this.outOfCredits();
          return;
        }
      }
    }
  }

  private outOfCredits(): void {
    this.t.error('INSUFFICIENT_CREDITS', 'The credit balance ran out; the audio received so far is billed and the stream closes.');
    // Bill no further than what was paid for, and recognize nothing more.
    this.receivedSeconds = Math.min(this.receivedSeconds, this.heldSeconds);
    this.discard = true;
    void this.end('insufficient_credits');
  }

  private now(): number {
    return this.samples / 16000;
  }

  private async process(pcm: Int16Array): Promise<void> {
    await this.o.stream.write(pcm);
    const frames = this.vad!.process(pcm);
    const frameSeconds = Vad.frameSeconds();
    this.samples += pcm.length;
    for (const timestamp of this.onsets.push(frames)) this.t.speechStarted(timestamp);
    // Endpointing follows the raw frames: a short pause may end an utterance (endpointing=10).
    for (let i = 0; i < frames.length; i++) {
      if (frames[i]) {
        this.inSpeech = true;
        this.silenceSeconds = 0;
      } else {
        this.silenceSeconds += frameSeconds;
      }
    }
    const p = this.o.params;
    if (this.inSpeech && p.endpointing > 0 && this.silenceSeconds * 1000 >= p.endpointing) {
      this.inSpeech = false;
      await this.finalizeUtterance(true, false);
    } else if (this.inSpeech && p.interimResults) {
      this.sinceInterim += pcm.length / 16000;
      if (this.sinceInterim >= (this.lastInterim ? INTERIM_EVERY_SECONDS : INTERIM_FIRST_SECONDS)) {
        this.sinceInterim = 0;
        const partial = await this.o.stream.partial();
        const text = partial ? this.render(partial).transcript : '';
        if (partial && text && text !== this.lastInterim) {
          this.lastInterim = text;
          this.t.results(this.results(partial, false, false, false));
        }
      }
    }
    if (!this.utteranceEndSent && this.lastWordEnd !== null && this.now() - this.lastWordEnd >= p.utteranceEndMs / 1000 && !this.inSpeech) {
      this.utteranceEndSent = true;
      this.t.utteranceEnd(this.lastWordEnd);
    }
  }

  private render(u: RecognizedUtterance) {
    const t = buildTranscript([u], { smartFormat: this.o.params.smartFormat, punctuate: this.o.params.punctuate });
    const words = t.words.map((w) => ({ word: w.word, start: w.start, end: w.end, confidence: w.confidence ?? 0, punctuated_word: w.punctuated }));
    const confidence = words.length ? +(words.reduce((a, w) => a + w.confidence, 0) / words.length).toFixed(3) : 0;
    return { transcript: t.text, words, confidence };
  }

  private results(u: RecognizedUtterance | null, isFinal: boolean, speechFinal: boolean, fromFinalize: boolean): LiveResult {
    const r = u ? this.render(u) : { transcript: '', words: [], confidence: 0 };
    const start = u ? u.start : this.now();
    const end = u ? u.end : this.now();
    return {
      start: +start.toFixed(3),
      duration: +Math.max(0, end - start).toFixed(3),
      isFinal,
      speechFinal,
      fromFinalize,
      transcript: r.transcript,
      confidence: r.confidence,
      words: r.words,
    };
  }

  private async finalizeUtterance(speechFinal: boolean, fromFinalize: boolean): Promise<void> {
    const u = await this.o.stream.finalizeUtterance();
    this.sinceInterim = 0;
    this.lastInterim = '';
    if (!u && !fromFinalize) return;
    if (u) {
      this.utterances++;
      this.lastWordEnd = u.end;
      this.utteranceEndSent = false;
    }
    this.t.results(this.results(u, true, speechFinal, fromFinalize));
  }

  private fail(err: unknown): void {
    if (this.ended) return;
    this.t.error('INTERNAL_ERROR', 'The recognizer failed; the stream closes.');
    void this.end('internal_error');
    void err;
  }

  /** Flushes the last result, bills once, tells the summary and closes. Safe to call twice. */
  async end(why: SessionEnd, opts: { clientGone?: boolean } = {}): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (opts.clientGone) this.discard = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    clearTimeout(this.maxTimer);
    clearInterval(this.holdTimer);
    // Encoded audio already received is decoded and queued before the flush (unless nobody listens).
    if (this.opus) {
      if (opts.clientGone || this.opus.failed) this.opus.kill();
      else await this.opus.finish();
    }
    // Let queued audio be recognized first (unless the client is gone), then flush.
    await this.chain.catch(() => undefined);
    if (!opts.clientGone) {
      try {
        if (this.resampler) {
          const tail = await this.resampler.flush();
          if (tail.length) await this.process(tail).catch(() => undefined);
        }
        const u = await this.o.stream.finalizeUtterance();
        if (u) {
          this.utterances++;
          this.t.results(this.results(u, true, true, false));
        }
      } catch {
        // A failed flush still bills and closes.
      }
    }
    await this.o.stream.close().catch(() => undefined);
    this.resampler?.close();
    this.vad?.free();
    const seconds = +this.receivedSeconds.toFixed(3);
    const billed = seconds > 0 ? billableSeconds(seconds) : 0;
    const credits = billed * this.o.creditsPerSecond;
    try {
      await this.o.work.finish(credits > 0 ? { units: billed, characters: 0, credits } : null);
    } catch {
      // The hold expires and is released if settling failed (database gone).
    }
    if (!opts.clientGone) {
      // A paused socket would not read the client's close frame (the handshake would hang).
      if (this.paused) {
        this.paused = false;
        this.t.resume();
      }
      this.t.summary({ duration: seconds, billedSeconds: billed, credits, utterances: this.utterances });
      this.t.close(why);
    }
    this.o.onEnd({ seconds, credits });
  }
}

/** The client's "type" for an error message: quoted when a string, else only its kind (it may be JSON nested 100,000 deep). */
function describeType(type: unknown): string {
  if (typeof type === 'string') return JSON.stringify(type.length > 64 ? `${type.slice(0, 64)}...` : type);
  return type === null || type === undefined ? 'null' : Array.isArray(type) ? 'array' : typeof type;
}
