// The five response formats of interface.md: json, text, verbose_json (decisions #17), srt, vtt.

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

function timestamp(seconds: number, sep: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(ms % 1000, 3)}`;
}

/** Subtitle cue text: at most two lines of about 42 characters. */
function cueLines(text: string): string {
  if (text.length <= 42) return text;
  const mid = text.lastIndexOf(' ', Math.ceil(text.length / 2));
  return mid > 0 ? `${text.slice(0, mid)}\n${text.slice(mid + 1)}` : text;
}

function speakerPrefix(t: Transcript['segments'][number], diarized: boolean, vtt: boolean): string {
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
      return `${t.segments.map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${speakerPrefix(s, ctx.diarized, false)}${cueLines(s.text)}\n`).join('\n')}`;
    case 'vtt':
      return `WEBVTT\n\n${t.segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${speakerPrefix(s, ctx.diarized, true)}${cueLines(s.text)}\n`).join('\n')}`;
    default:
      throw new Error(`unknown format ${String(format)}`);
  }
}
