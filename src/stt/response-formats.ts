// The five response formats of docs/interface.md: json, text, verbose_json (decisions #17), srt, vtt.

import type { Transcript, TranscriptWord } from './transcript.js';

export const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

export const RESPONSE_CONTENT_TYPES: Record<ResponseFormat, string> = {
  json: 'application/json',
  text: 'text/plain; charset=utf-8',
  verbose_json: 'application/json',
  srt: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
};

export interface RenderContext {
  language: string;
  duration: number;
  model: string;
  provider: string;
  /** Id of the engine that served the request (e.g. "pocketsphinx", "sherpa:whisper-base.en"). */
  engine: string;
  creditsUsed: number;
  /** Word list wanted: verbose_json with word granularity, or diarization. */
  includeWords: boolean;
  /** Segments in verbose_json (default, or timestamp_granularities=segment). */
  includeSegments: boolean;
  diarized: boolean;
}

function wordJson(w: TranscriptWord, diarized: boolean) {
  return {
    word: w.word,
    punctuated_word: w.punctuated,
    start: w.start,
    end: w.end,
    confidence: w.confidence ?? 0,
    ...(diarized ? { speaker: w.speaker ?? 0 } : {}),
  };
}

export function timestamp(seconds: number, sep: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(ms % 1000, 3)}`;
}

/** Subtitle limits: two lines of at most 42 characters, at most 7 seconds on screen. */
export const CUE_LINE_CHARS = 42;
export const CUE_MAX_SECONDS = 7;

export interface Cue {
  start: number;
  end: number;
  lines: string[];
  speaker?: number;
}

/** Breaks text into at most two lines, as balanced as the word boundaries allow. */
export function cueLines(text: string): string[] {
  if (text.length <= CUE_LINE_CHARS) return [text];
  let best = -1;
  for (let i = text.indexOf(' '); i >= 0; i = text.indexOf(' ', i + 1)) {
    if (best < 0 || Math.abs(text.length / 2 - i) < Math.abs(text.length / 2 - best)) best = i;
  }
  return best > 0 ? [text.slice(0, best), text.slice(best + 1)] : [text];
}

/**
 * Cues from segments: a segment that does not fit two lines or stays too long on screen is cut
 * at word boundaries, each cue timed by its own words.
 */
export function subtitleCues(segments: Transcript['segments']): Cue[] {
  const cues: Cue[] = [];
  for (const seg of segments) {
    let run: TranscriptWord[] = [];
    const flush = () => {
      if (!run.length) return;
      cues.push({
        start: run[0]!.start,
        end: run[run.length - 1]!.end,
        lines: cueLines(run.map((w) => w.punctuated).join(' ')),
        ...(seg.speaker !== undefined ? { speaker: seg.speaker } : {}),
      });
      run = [];
    };
    if (!seg.words.length) {
      cues.push({
        start: seg.start,
        end: seg.end,
        lines: cueLines(seg.text),
        ...(seg.speaker !== undefined ? { speaker: seg.speaker } : {}),
      });
      continue;
    }
    for (const w of seg.words) {
      const text = [...run, w].map((x) => x.punctuated).join(' ');
      const tooLong = text.length > 2 * CUE_LINE_CHARS - 4 || (run.length > 0 && w.end - run[0]!.start > CUE_MAX_SECONDS);
      if (run.length && tooLong) flush();
      run.push(w);
    }
    flush();
  }
  return cues;
}

function speakerPrefix(t: Cue, diarized: boolean, vtt: boolean): string {
  if (!diarized || t.speaker === undefined) return '';
  return vtt ? `<v Speaker ${t.speaker}>` : `[Speaker ${t.speaker}] `;
}

export function render(format: ResponseFormat, t: Transcript, ctx: RenderContext): string | Record<string, unknown> {
  switch (format) {
    case 'text':
      return `${t.text}\n`;
    case 'json':
      return {
        text: t.text,
        language: ctx.language,
        duration: ctx.duration,
        model: ctx.model,
        provider: ctx.provider,
        engine: ctx.engine,
        credits_used: ctx.creditsUsed,
        ...(ctx.includeWords ? { words: t.words.map((w) => wordJson(w, ctx.diarized)) } : {}),
      };
    case 'verbose_json':
      return {
        task: 'transcribe',
        language: ctx.language,
        duration: ctx.duration,
        text: t.text,
        model: ctx.model,
        provider: ctx.provider,
        engine: ctx.engine,
        credits_used: ctx.creditsUsed,
        ...(ctx.includeSegments
          ? {
              segments: t.segments.map((s) => ({
                id: s.id,
                start: s.start,
                end: s.end,
                text: s.text,
                avg_confidence: s.avgConfidence,
                ...(ctx.diarized ? { speaker: s.speaker ?? 0 } : {}),
              })),
            }
          : {}),
        ...(ctx.includeWords ? { words: t.words.map((w) => wordJson(w, ctx.diarized)) } : {}),
      };
    case 'srt':
      return subtitleCues(t.segments)
        .map(
          (c, i) =>
            `${i + 1}\n${timestamp(c.start, ',')} --> ${timestamp(c.end, ',')}\n${speakerPrefix(c, ctx.diarized, false)}${c.lines.join('\n')}\n`,
        )
        .join('\n');
    case 'vtt':
      return `WEBVTT\n\n${subtitleCues(t.segments)
        .map(
          (c) => `${timestamp(c.start, '.')} --> ${timestamp(c.end, '.')}\n${speakerPrefix(c, ctx.diarized, true)}${c.lines.join('\n')}\n`,
        )
        .join('\n')}`;
    default:
      throw new Error(`unknown format ${String(format)}`);
  }
}

/**
 * A transcription in the response format its request asked for, with the words and segments that
 * format and the request's granularities call for: one rendering for the batch endpoints and a
 * job's result (src/jobs/runner.ts).
 */
export function renderTranscription(
  options: { responseFormat: ResponseFormat; diarize: boolean; granularities: readonly string[] },
  t: { transcript: Transcript; language: string; duration: number; model: string; provider: string; engine: string; credits: number },
): string | Record<string, unknown> {
  return render(options.responseFormat, t.transcript, {
    language: t.language,
    duration: t.duration,
    model: t.model,
    provider: t.provider,
    engine: t.engine,
    creditsUsed: t.credits,
    includeWords: options.diarize || (options.responseFormat === 'verbose_json' && options.granularities.includes('word')),
    includeSegments: options.responseFormat === 'verbose_json',
    diarized: options.diarize,
  });
}
