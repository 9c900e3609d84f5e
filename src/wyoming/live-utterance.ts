// One Wyoming utterance on the live recognizer (decision #48): the protocol-neutral live session
// (src/stt/live/session.ts) that the native and Deepgram sockets run, fed the utterance's audio as
// it arrives and rendered as Wyoming's streamed transcript: `transcript-chunk` events while the
// user speaks (transcript-chunks.ts decides what is settled enough to send), the whole text once
// the audio has stopped. Admission and credits are the live stream's (SttService.openLive: the
// account's windows and slot, a hold grown as audio arrives, settled once for the started seconds
// received), recorded as `stt` usage: the price of the same audio sent to the batch endpoint. An
// utterance that fails before any of its words went out costs nothing, as a failed request
// (decision #27); once words went out, the audio received is billed even if it then fails, so
// chunks are never a way around the bill.

import type { AuthContext } from '../accounts/auth-context.js';
import type { LiveCredits } from '../stt/live-credits.js';
import type { ErrorCode } from '../errors.js';
import { HOLD_BLOCK_SECONDS } from '../edge/live-upgrade.js';
import type { SttModel } from '../registry/model-registry.js';
import { LIVE_SLOT_RENEW_MS } from '../stt/service.js';
import type { RealtimeParams } from '../stt/live/params.js';
import { RealtimeSession } from '../stt/live/session.js';
import type { LiveResult, SessionEnd, SessionOutput } from '../stt/live/session-output.js';
import { Stream16k, type AudioFormat } from './audio.js';
import { requestId, type WyomingPeer } from './peer.js';
import { TranscriptChunks } from './transcript-chunks.js';

/** How long audio-start waits for a free recognizer before SERVICE_OVERLOADED (as the live sockets). */
const RECOGNIZER_WAIT_MS = 3000;
/**
 * Silence that ends a recognizer utterance inside the Wyoming one (the client decides where the
 * whole ends, with audio-stop): a pause long enough to end a sentence (src/stt/punctuate.ts), after
 * which the words before it are final and go out.
 */
const ENDPOINTING_MS = 700;

export class LiveUtterance implements SessionOutput {
  private readonly chunks = new TranscriptChunks();
  private readonly audio: Stream16k;
  private session!: RealtimeSession;
  private credits!: LiveCredits;
  /** Words went out (transcript-chunk): a failure from now on still bills the audio received. */
  private spoke = false;
  /** An error event was sent for this utterance: it ends without a transcript. */
  private failed = false;
  private paused: { promise: Promise<void>; resume: () => void } | null = null;
  private readonly done: Promise<void>;
  private markDone!: () => void;

  private constructor(
    private readonly peer: WyomingPeer,
    readonly language: string,
  ) {
    this.audio = new Stream16k(peer.maxTranscribeSeconds * 16000);
    this.done = new Promise((resolve) => (this.markDone = resolve));
  }

  /** Admits the utterance (refusals are thrown: credits, windows, slot, no free recognizer) and starts its session. */
  static async open(peer: WyomingPeer, auth: AuthContext, model: SttModel, language: string | undefined): Promise<LiveUtterance> {
    const { services } = peer;
    const id = requestId();
    const live = await services.stt.openLive(auth, {
      requestId: id,
      model,
      language,
      keywords: [],
      recognizerWaitMs: RECOGNIZER_WAIT_MS,
      holdBlockSeconds: HOLD_BLOCK_SECONDS,
      kind: 'stt',
    });
    const u = new LiveUtterance(peer, live.language);
    const params: RealtimeParams = {
      model,
      language,
      encoding: 'linear16',
      sampleRate: 16000,
      interimResults: true,
      endpointing: ENDPOINTING_MS,
      utteranceEndMs: 1000,
      // As the batch endpoint's defaults, which the Wyoming transcript always had.
      punctuate: true,
      smartFormat: true,
      keywords: [],
    };
    u.credits = live.credits;
    live.slot.keepAlive(LIVE_SLOT_RENEW_MS);
    u.session = new RealtimeSession(u, {
      requestId: id,
      params,
      language: live.language,
      engine: live.engine,
      stream: live.stream,
      reopen: live.reopen,
      recognizerIdleMs: services.config.realtimeRecognizerIdleSeconds * 1000,
      credits: live.credits,
      // The connection's own idle rule governs; the utterance's length is checked here.
      idleTimeoutMs: peer.idleTimeoutMs,
      maxSessionSeconds: services.config.realtimeMaxSessionSeconds,
      onEnd: () => {
        void live.slot.release();
        u.markDone();
      },
    });
    void u.session.start();
    return u;
  }

  /** Feeds a chunk; false when the utterance would be longer than allowed (nothing is taken). Waits while the recognizer is behind. */
  async write(bytes: Buffer, f: AudioFormat): Promise<boolean> {
    const pcm = await this.audio.push(bytes, f);
    if (!pcm) return false;
    this.feed(pcm);
    await this.paused?.promise;
    return true;
  }

  /** The audio has stopped: the rest is recognized; the transcript, or null when the utterance failed (its error was sent). */
  async finish(): Promise<string | null> {
    this.feed(await this.audio.finish().catch(() => new Int16Array(0)));
    void this.session.end('client_closed');
    await this.done;
    return this.failed ? null : this.chunks.text;
  }

  /** Drops the utterance (the client went away, started another, or sent what cannot be taken). */
  drop(): void {
    if (!this.spoke) this.credits.waive();
    // Nothing more goes out for it (a result being recognized now would follow the error event).
    this.failed = true;
    this.audio.dispose();
    this.paused?.resume();
    void this.session.end('client_closed', { clientGone: true });
  }

  private feed(pcm: Int16Array): void {
    if (pcm.length) this.session.onAudio(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  }

  private send(type: string, data: Record<string, unknown>): void {
    // Written in call order; a connection gone meanwhile is no fault of the session's.
    void this.peer.send(type, data).catch(() => undefined);
  }

  // What the session tells (SessionOutput), as Wyoming events.

  results(r: LiveResult): void {
    if (this.failed) return;
    const chunk = r.isFinal ? this.chunks.final(r.words) : this.chunks.interim(r.words);
    if (chunk === null) return;
    this.spoke = true;
    this.send('transcript-chunk', { text: chunk });
  }

  error(code: ErrorCode, message: string): void {
    if (this.failed) return;
    this.failed = true;
    if (!this.spoke) this.credits.waive();
    this.send('error', { text: message, code });
  }

  close(why: SessionEnd): void {
    // Ends the session decides alone without an error of its own: the length of the stream.
    if (why === 'max_duration' || why === 'idle_timeout')
      this.error('AUDIO_TOO_LONG', 'The utterance ran longer than a live stream may; it is dropped.');
  }

  pause(): void {
    if (this.paused) return;
    let resume!: () => void;
    const promise = new Promise<void>((r) => (resume = r));
    this.paused = {
      promise,
      resume: () => {
        this.paused = null;
        resume();
      },
    };
  }

  resume(): void {
    this.paused?.resume();
  }

  opened(): void {}
  speechStarted(): void {}
  utteranceEnd(): void {}
  summary(): void {}
}
