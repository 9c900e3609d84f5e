// A Parla transcription rendered as Deepgram's prerecorded answer (ListenV1Response): metadata
// (request id, the audio's sha256, duration, one channel, the model that served it) and
// results.channels[0].alternatives[0] with the transcript, words (punctuated_word when punctuation
// or formatting was asked for, speaker when diarized), paragraphs when asked, results.utterances
// when asked, detected_language when detection was. Pure: no I/O. docs/compatibility.md lists
// what differs from Deepgram's own answer.

import { createHash } from 'node:crypto';
import type { Transcription } from '../../stt/service.js';
import type { TranscriptWord } from '../../stt/transcript.js';
import type { ListenParams } from './listen-params.js';

export interface DeepgramWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word?: string;
  speaker?: number;
}

export interface DeepgramSentence {
  text: string;
  start: number;
  end: number;
}

export interface DeepgramParagraph {
  sentences: DeepgramSentence[];
  speaker?: number;
  num_words: number;
  start: number;
  end: number;
}

export interface DeepgramUtterance {
  start: number;
  end: number;
  confidence: number;
  channel: number;
  transcript: string;
  words: DeepgramWord[];
  speaker: number;
  id: string;
}

export interface DeepgramListenResponse {
  metadata: {
    transaction_key: 'deprecated';
    request_id: string;
    sha256: string;
    created: string;
    duration: number;
    channels: number;
    models: string[];
    model_info: Record<string, { name: string; version: string; arch: string }>;
    tags?: string[];
  };
  results: {
    channels: Array<{
      alternatives: Array<{
        transcript: string;
        confidence: number;
        words: DeepgramWord[];
        paragraphs?: { transcript: string; paragraphs: DeepgramParagraph[] };
      }>;
      detected_language?: string;
    }>;
    utterances?: DeepgramUtterance[];
  };
}

export interface RenderContext {
  requestId: string;
  /** Hex sha256 of the audio bytes the request carried (or the URL's body). */
  sha256: string;
  created: Date;
  /** Parla's version: model_info's version. */
  version: string;
}

const round = (n: number, digits = 3) => +n.toFixed(digits);

/**
 * A stable UUID-shaped id for the model that served (Deepgram names models by UUID in
 * metadata.models): derived from the product model and the engine, so the same pair always has
 * the same id and a rebinding (docs/engines.md) shows as a new one.
 */
export function modelUuid(model: string, engine: string): string {
  const h = createHash('sha1').update(`parla:${model}:${engine}`).digest('hex');
  // Version 5 (name-based, SHA-1) layout, RFC 9562.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

function renderWord(w: TranscriptWord, p: ListenParams): DeepgramWord {
  const out: DeepgramWord = { word: bareWord(w), start: round(w.start), end: round(w.end), confidence: round(w.confidence ?? 0) };
  if (p.punctuate || p.smartFormat) out.punctuated_word = w.punctuated;
  if (p.diarize) out.speaker = w.speaker ?? 0;
  return out;
}

/** Deepgram's bare word: lower case, except a redaction's token ([CREDIT_CARD_1], as Deepgram writes it). */
function bareWord(w: TranscriptWord): string {
  return w.word.startsWith('[') ? w.word : w.word.toLowerCase();
}

/** The text of a run of words: as punctuated when punctuation or formatting was asked for, else the plain words. */
function textOf(words: TranscriptWord[], p: ListenParams): string {
  return words.map((w) => (p.punctuate || p.smartFormat ? w.punctuated : bareWord(w))).join(' ');
}

/**
 * Utterances as Deepgram makes them: a new one where the pause between two words is at least
 * utt_split seconds, or where the speaker changes (diarized).
 */
export function utterancesOf(words: TranscriptWord[], p: ListenParams, requestId: string): DeepgramUtterance[] {
  const groups: TranscriptWord[][] = [];
  let cur: TranscriptWord[] = [];
  for (const w of words) {
    const prev = cur[cur.length - 1];
    if (prev && (w.start - prev.end >= p.uttSplit || (p.diarize && (w.speaker ?? 0) !== (prev.speaker ?? 0)))) {
      groups.push(cur);
      cur = [];
    }
    cur.push(w);
  }
  if (cur.length) groups.push(cur);
  return groups.map((g, i) => ({
    start: round(g[0]!.start),
    end: round(g[g.length - 1]!.end),
    confidence: round(mean(g.map((w) => w.confidence ?? 0))),
    channel: 0,
    transcript: textOf(g, p),
    words: g.map((w) => renderWord(w, p)),
    speaker: g[0]!.speaker ?? 0,
    // Deepgram's ids are UUIDs; these are derived from the request and the position, so unique per answer.
    id: modelUuid(requestId, String(i)),
  }));
}

const SENTENCE_END = new Set(['.', '?', '!']);

/**
 * Paragraphs: Parla's segments (the recognizer's utterances, cut at pauses), split again where the
 * speaker changes; sentences end at a word whose punctuated form ends in . ? or !.
 */
export function paragraphsOf(t: Transcription, p: ListenParams): { transcript: string; paragraphs: DeepgramParagraph[] } {
  const runs: TranscriptWord[][] = [];
  for (const seg of t.transcript.segments) {
    let cur: TranscriptWord[] = [];
    for (const w of seg.words) {
      const prev = cur[cur.length - 1];
      if (prev && p.diarize && (w.speaker ?? 0) !== (prev.speaker ?? 0)) {
        runs.push(cur);
        cur = [];
      }
      cur.push(w);
    }
    if (cur.length) runs.push(cur);
  }
  const paragraphs = runs.map((run) => {
    const sentences: DeepgramSentence[] = [];
    let s: TranscriptWord[] = [];
    for (const w of run) {
      s.push(w);
      if (SENTENCE_END.has(w.punctuated.slice(-1))) {
        sentences.push({ text: textOf(s, p), start: round(s[0]!.start), end: round(w.end) });
        s = [];
      }
    }
    if (s.length) sentences.push({ text: textOf(s, p), start: round(s[0]!.start), end: round(s[s.length - 1]!.end) });
    return {
      sentences,
      ...(p.diarize ? { speaker: run[0]!.speaker ?? 0 } : {}),
      num_words: run.length,
      start: round(run[0]!.start),
      end: round(run[run.length - 1]!.end),
    };
  });
  // Deepgram's paragraph transcript: each paragraph after a blank line, "Speaker N: " when diarized.
  const transcript = paragraphs
    .map((para) => `\n${p.diarize ? `Speaker ${para.speaker}: ` : ''}${para.sentences.map((s) => s.text).join(' ')}`)
    .join('\n');
  return { transcript, paragraphs };
}

export function renderListenResponse(t: Transcription, p: ListenParams, ctx: RenderContext): DeepgramListenResponse {
  const words = t.transcript.words;
  const uuid = modelUuid(t.model, t.engine);
  const alternative = {
    transcript: textOf(words, p),
    confidence: round(mean(words.map((w) => w.confidence ?? 0))),
    words: words.map((w) => renderWord(w, p)),
    ...(p.paragraphs ? { paragraphs: paragraphsOf(t, p) } : {}),
  };
  return {
    metadata: {
      transaction_key: 'deprecated',
      request_id: ctx.requestId,
      sha256: ctx.sha256,
      created: ctx.created.toISOString(),
      duration: t.duration,
      channels: 1,
      models: [uuid],
      // name: the model as asked and what it mapped to; arch: the engine that served it.
      model_info: {
        [uuid]: { name: p.requestedModel === t.model ? t.model : `${p.requestedModel} (${t.model})`, version: ctx.version, arch: t.engine },
      },
      ...(p.tags.length ? { tags: p.tags } : {}),
    },
    results: {
      channels: [{ alternatives: [alternative], ...(p.detectLanguage ? { detected_language: t.language } : {}) }],
      ...(p.utterances ? { utterances: utterancesOf(words, p, ctx.requestId) } : {}),
    },
  };
}
