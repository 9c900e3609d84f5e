// Text-to-speech over Wyoming: `synthesize` (the whole text), or synthesize-start, -chunk and -stop
// (each finished sentence spoken while the rest arrives), spoken by TtsService.stream as
// /tts/stream is (billing, metrics and usage unchanged) and sent as audio events.

import { ApiError } from '../errors.js';
import { codePointLength } from '../domain/text-length.js';
import type { WyomingEvent } from './framing.js';
import { mapVoice } from './mapping.js';
import { requestId, type WyomingPeer } from './peer.js';

/** Sample rate of synthesized audio (Piper's usual rate, which Home Assistant's players expect). */
export const TTS_RATE = 22050;
/** Longest text of one synthesis, whole or streamed (as /tts/generate and /tts/stream: 50,000 characters). */
const MAX_STREAM_TEXT = 50_000;
/** Outgoing audio is cut into chunks of at most this many bytes (about 0.1 s). */
const CHUNK_BYTES = 4410;

interface SpeakingStream {
  voice: unknown;
  text: string;
  /** Characters of `text` already handed to synthesis. */
  spoken: number;
  /** Characters of `text` already searched for a sentence end. */
  scanned: number;
  release: () => void;
  audioStarted: boolean;
  failed: boolean;
}

export class WyomingSpeaker {
  private speaking: SpeakingStream | null = null;

  constructor(private readonly peer: WyomingPeer) {}

  /** The connection went away: a streamed synthesis gives its slot back. */
  close(): void {
    this.speaking?.release();
    this.speaking = null;
  }

  async synthesize(ev: WyomingEvent): Promise<void> {
    // Streaming clients also send the whole text as `synthesize` for servers that cannot stream;
    // it is already being spoken from the chunks.
    if (this.speaking) return;
    const text = ev.data.text;
    if (typeof text !== 'string') throw new ApiError('MISSING_TEXT', { message: 'synthesize needs data.text.' });
    // The native limit (a frame may carry about a million characters), before any credit or slot.
    if (text.length > MAX_STREAM_TEXT && codePointLength(text) > MAX_STREAM_TEXT) {
      throw new ApiError('TEXT_TOO_LONG', {
        message: `A synthesis may be at most ${MAX_STREAM_TEXT} characters.`,
        details: { max_characters: MAX_STREAM_TEXT },
      });
    }
    const release = await this.peer.admit(await this.peer.authenticate());
    try {
      const started = await this.speak(ev.data.voice, text, false);
      if (started) await this.peer.send('audio-stop');
    } finally {
      release();
    }
  }

  async synthesizeStart(ev: WyomingEvent): Promise<void> {
    if (this.speaking) return this.peer.protocolError('synthesize_in_progress', 'synthesize-start while a streamed synthesis is open.');
    try {
      const auth = await this.peer.authenticate();
      // Checked now so a refused stream says so before its text arrives.
      mapVoice(this.peer.services.catalog, ev.data.voice);
      const release = await this.peer.admit(auth);
      this.speaking = { voice: ev.data.voice, text: '', spoken: 0, scanned: 0, release, audioStarted: false, failed: false };
    } catch (err) {
      // A refused stream is one error: its chunks are dropped, its stop still answered.
      this.speaking = {
        voice: ev.data.voice,
        text: '',
        spoken: 0,
        scanned: 0,
        release: () => undefined,
        audioStarted: false,
        failed: true,
      };
      throw err;
    }
  }

  async synthesizeChunk(ev: WyomingEvent): Promise<void> {
    const s = this.speaking;
    if (!s) return this.peer.protocolError('synthesize_without_start', 'synthesize-chunk before synthesize-start.');
    if (s.failed) return;
    if (typeof ev.data.text !== 'string') return this.peer.protocolError('invalid_event', 'synthesize-chunk needs data.text.');
    if (s.text.length + ev.data.text.length > MAX_STREAM_TEXT) {
      s.failed = true;
      throw new ApiError('TEXT_TOO_LONG', { message: `A streamed synthesis may be at most ${MAX_STREAM_TEXT} characters.` });
    }
    s.text += ev.data.text;
    // Each finished sentence is spoken while the rest of the text is still arriving.
    const end = lastSentenceEnd(s.text, Math.max(s.spoken, s.scanned));
    s.scanned = Math.max(s.spoken, s.text.length - 1);
    if (end > s.spoken) await this.speakPiece(s, s.text.slice(s.spoken, end), end);
  }

  async synthesizeStop(): Promise<void> {
    const s = this.speaking;
    if (!s) return this.peer.protocolError('synthesize_without_start', 'synthesize-stop before synthesize-start.');
    try {
      if (!s.failed && s.text.slice(s.spoken).trim() !== '') await this.speakPiece(s, s.text.slice(s.spoken), s.text.length);
      if (s.audioStarted) await this.peer.send('audio-stop');
      await this.peer.send('synthesize-stopped');
    } finally {
      s.release();
      this.speaking = null;
    }
  }

  private async speakPiece(s: SpeakingStream, piece: string, end: number): Promise<void> {
    s.spoken = end;
    if (piece.trim() === '') return;
    try {
      const started = await this.speak(s.voice, piece, s.audioStarted);
      s.audioStarted ||= started;
    } catch (err) {
      // One error for the stream; what follows is dropped until synthesize-stop.
      s.failed = true;
      throw err;
    }
  }

  /**
   * Speaks `text` through TtsService.stream (billed as /tts/stream), sending audio-start first
   * unless `continuing`; returns whether audio-start was sent. The caller sends audio-stop.
   */
  private async speak(voice: unknown, text: string, continuing: boolean): Promise<boolean> {
    // Per request, like the HTTP hook: a key revoked mid-stream stops the next sentence.
    const auth = await this.peer.authenticate();
    const v = mapVoice(this.peer.services.catalog, voice);
    const stream = await this.peer.services.tts.stream(
      auth,
      {
        requestId: requestId(),
        text,
        voice: v.voice,
        model: v.model,
        language: v.language,
        speed: 1,
        pitch: undefined,
        // Wyoming defines no markup for synthesize: its text is plain (decision #37).
        plainText: true,
        sampleRate: TTS_RATE,
      },
      this.peer.signal,
      this.peer.services.log,
    );
    const format = { rate: TTS_RATE, width: 2, channels: 1 };
    if (!continuing) await this.peer.send('audio-start', format);
    let carry: Buffer | null = null;
    try {
      for await (const piece of stream.body as AsyncIterable<Buffer>) {
        let buf: Buffer = carry ? Buffer.concat([carry, piece]) : piece;
        const whole = buf.length - (buf.length % 2);
        carry = whole < buf.length ? Buffer.from(buf.subarray(whole)) : null;
        buf = buf.subarray(0, whole);
        for (let at = 0; at < buf.length; at += CHUNK_BYTES)
          await this.peer.send('audio-chunk', format, buf.subarray(at, Math.min(buf.length, at + CHUNK_BYTES)));
      }
    } catch (err) {
      stream.body.destroy();
      throw err;
    }
    return !continuing;
  }
}

/** End of the last complete sentence in text after `from` (a terminator followed by space), or `from`. */
function lastSentenceEnd(text: string, from: number): number {
  let end = from;
  for (let i = from; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    // . ! ? and their CJK forms, followed by white space.
    if ((c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002 || c === 0xff01 || c === 0xff1f) && /\s/.test(text[i + 1]!)) end = i + 2;
  }
  return end;
}
