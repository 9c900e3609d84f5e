// Speech-to-text over Wyoming: `transcribe` (model and language, checked before any audio), then
// audio-start, audio-chunk and audio-stop carry one utterance. It is recognized while it arrives
// (live-utterance.ts, decision #48): audio-start is answered with `transcript-start`, the words go
// out as `transcript-chunk` events while the user is still speaking, and audio-stop is answered
// with the whole `transcript` (what a client that knows no streaming reads) then `transcript-stop`,
// in the protocol's order. A failed utterance gets an `error` event instead of its transcript; its
// stream is still closed with `transcript-stop` at its audio-stop.

import { ApiError } from '../errors.js';
import type { SttModel } from '../registry/model-registry.js';
import type { WyomingEvent } from './framing.js';
import { readFormat, type AudioFormat } from './audio.js';
import { mapSttModel, parlaLanguage } from './mapping.js';
import type { WyomingPeer } from './peer.js';
import { LiveUtterance } from './live-utterance.js';

interface Listening {
  model: SttModel;
  language: string | undefined;
  /** Set by audio-start. */
  format: AudioFormat | null;
  utterance: LiveUtterance | null;
}

export class WyomingListener {
  private listening: Listening | null = null;
  /**
   * One refusal is one error event: after a refused `transcribe` (or first `audio-start`) its whole
   * audio stream is dropped up to its audio-stop ('refused'); after bad audio, the rest of that
   * utterance up to its audio-stop, a new audio-start beginning afresh ('broken').
   */
  private discarding: 'refused' | 'broken' | null = null;
  /** A `transcript-start` was sent whose `transcript-stop` is still owed. */
  private streamOpen = false;

  constructor(private readonly peer: WyomingPeer) {}

  /** Bad audio in the utterance: the rest of it is dropped; its audio-stop ends the dropping. */
  audioBroken(): void {
    if (this.listening) this.discarding = 'broken';
    this.drop();
  }

  async transcribe(ev: WyomingEvent): Promise<void> {
    await this.abandon();
    this.discarding = 'refused';
    const auth = await this.peer.authenticate();
    this.peer.services.stt.checkAccess(auth, 'batch');
    for (const field of ['name', 'language'] as const) {
      const v = ev.data[field];
      if (v !== undefined && v !== null && (typeof v !== 'string' || v.length > 100)) {
        throw new ApiError('INVALID_PARAMETER', {
          message: `transcribe.${field} must be a string of at most 100 characters.`,
          details: { field },
        });
      }
    }
    const language =
      typeof ev.data.language === 'string' && ev.data.language.trim() !== '' ? parlaLanguage(ev.data.language.trim()) : undefined;
    // Model and language are checked now, so a bad one is refused before any audio is sent.
    const model = this.peer.services.registry.checkSttModel(mapSttModel(ev.data.name), 'universal');
    this.peer.services.registry.resolveSttLanguage(model, language);
    this.listening = { model, language, format: null, utterance: null };
    this.discarding = null;
  }

  /** Forgets the utterance in progress (the connection is gone, or its audio is bad): what was received is billed. */
  drop(): void {
    this.listening?.utterance?.drop();
    this.listening = null;
  }

  /** Drops the utterance in progress and closes its transcript stream (a new one begins). */
  private async abandon(): Promise<void> {
    this.drop();
    await this.closeStream();
  }

  private async closeStream(): Promise<void> {
    if (!this.streamOpen) return;
    this.streamOpen = false;
    await this.peer.send('transcript-stop');
  }

  async audioStart(ev: WyomingEvent): Promise<void> {
    if (this.discarding === 'refused') return;
    this.discarding = null;
    // Another audio-start before this one's audio-stop: the utterance in progress is dropped.
    if (this.listening?.utterance) {
      const { model, language } = this.listening;
      await this.abandon();
      this.listening = { model, language, format: null, utterance: null };
    }
    await this.closeStream();
    let format: AudioFormat;
    try {
      format = readFormat(ev.data, null);
    } catch (err) {
      this.drop();
      this.discarding = 'broken';
      throw err;
    }
    this.discarding = 'refused';
    const auth = await this.peer.authenticate();
    this.peer.services.stt.checkAccess(auth, 'batch');
    // Without `transcribe` first, the defaults.
    const l = this.listening ?? {
      model: this.peer.services.registry.checkSttModel(mapSttModel(undefined), 'universal'),
      language: undefined,
      format: null,
      utterance: null,
    };
    this.listening = null;
    const utterance = await LiveUtterance.open(this.peer, auth, l.model, l.language);
    this.listening = { ...l, format, utterance };
    this.discarding = null;
    this.streamOpen = true;
    await this.peer.send('transcript-start', { language: utterance.language });
  }

  async audioChunk(ev: WyomingEvent): Promise<void> {
    if (this.discarding) return;
    const l = this.listening;
    if (!l || !l.utterance || !l.format) return this.peer.protocolError('audio_without_start', 'audio-chunk before audio-start.');
    const format = readFormat(ev.data, l.format);
    if (!ev.payload) return;
    if (!(await l.utterance.write(ev.payload, format))) {
      this.drop();
      this.discarding = 'broken';
      throw new ApiError('FILE_TOO_LARGE', { message: `An utterance may be at most ${this.peer.maxTranscribeSeconds} seconds long.` });
    }
  }

  async audioStop(): Promise<void> {
    if (this.discarding) {
      this.discarding = null;
      await this.closeStream();
      return;
    }
    const l = this.listening;
    if (!l || !l.utterance) return this.peer.protocolError('audio_without_start', 'audio-stop before audio-start.');
    this.listening = null;
    const text = await l.utterance.finish();
    // The protocol's order: the complete transcript for every client, then the end of the stream.
    if (text !== null) await this.peer.send('transcript', { text, language: l.utterance.language });
    await this.closeStream();
  }
}
