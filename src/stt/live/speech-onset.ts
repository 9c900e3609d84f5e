// Finds the onsets of speech in the VAD's frame decisions, for SpeechStarted: one event per onset,
// stamped at the onset. The raw decisions are too jumpy for that: WebRTC's VAD calls the first
// ~80 ms of a noisy stream speech while it learns the noise floor, and a pause of a frame or two
// inside a sentence would otherwise count as speech ending and starting again.

/** Consecutive speech frames (20 ms) that make an onset: longer than the VAD's start-up blip. */
export const ONSET_FRAMES = 6;
/** Consecutive non-speech frames after which speech has ended: a pause between sentences, not a gap between words. */
export const OFFSET_FRAMES = 20;

export class SpeechOnsets {
  private frame = 0;
  private speaking = false;
  private run = 0;
  private runStart = 0;

  constructor(
    private readonly frameSeconds: number,
    private readonly onsetFrames = ONSET_FRAMES,
    private readonly offsetFrames = OFFSET_FRAMES,
  ) {}

  /** Feeds the next frame decisions; returns the onsets they complete, in seconds on the stream. */
  push(frames: readonly boolean[]): number[] {
    const onsets: number[] = [];
    for (const speech of frames) {
      // `run` counts the frames that disagree with the current state, `runStart` where they began.
      if (speech !== this.speaking) {
        if (this.run === 0) this.runStart = this.frame;
        this.run++;
        if (this.run >= (this.speaking ? this.offsetFrames : this.onsetFrames)) {
          this.speaking = !this.speaking;
          this.run = 0;
          if (this.speaking) onsets.push(+(this.runStart * this.frameSeconds).toFixed(3));
        }
      } else {
        this.run = 0;
      }
      this.frame++;
    }
    return onsets;
  }
}
