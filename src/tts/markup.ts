// The TTS markup (docs/interface.md): break tags (timed silence) and expression tags, parsed into a
// flat list of items. Rules (decisions #12, #13): a <break> with an unparsable time, an unclosed or
// stray <whisper>/<emphasis>, or any other tag-like <word> is INVALID_MARKUP naming the tag; a
// plain "<" or ">" that does not form a tag is spoken as text.

import { ApiError } from '../errors.js';
import { isAsciiLetter, isSpace } from './text-scan.js';

export const VOCALIZATIONS = ['chuckle', 'laugh', 'sigh', 'gasp', 'yawn', 'cough'] as const;
export type Vocalization = (typeof VOCALIZATIONS)[number];
export const SPAN_TAGS = ['whisper', 'emphasis'] as const;
export type SpanTag = (typeof SPAN_TAGS)[number];

/** Longest silence one break tag may ask for; longer values are clamped (docs/interface.md). */
export const MAX_BREAK_SECONDS = 20;

export type MarkupItem =
  | { type: 'text'; text: string; whisper: boolean; emphasis: boolean }
  | { type: 'vocal'; kind: Vocalization; whisper: boolean }
  | { type: 'break'; seconds: number; requested: number };

export interface ParsedMarkup {
  items: MarkupItem[];
  /** The text with every tag removed: what is billed (decisions #2). */
  plainText: string;
  hasBreaks: boolean;
  hasExpressions: boolean;
}

// Tags are found by the hand-written scanner below, not a regular expression: the earlier tag
// regex had overlapping quantifiers (whitespace, attributes, whitespace) and took cubic time on "<a"
// followed by spaces, on the event loop. The scanner looks at each character a bounded number of
// times. Small anchored regexes remain only where they are linear (no overlapping quantifiers).
const BREAK_TIME = /^\s+time\s*=\s*(?:"([^"]*)"|'([^']*)')\s*$/;

function isNameChar(c: number): boolean {
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;
}

export interface Tag {
  /** Where the tag's "<" is. */
  start: number;
  /** The tag as written, "<" to ">". */
  text: string;
  closing: boolean;
  name: string;
  /** What follows the name up to the optional "/" (begins with whitespace; trailing space removed). */
  attrs: string;
  selfClosing: boolean;
  end: number;
}

/**
 * The tag starting at input[start] (a "<"), or null when none starts there: "<", an optional "/",
 * a letter, name characters [A-Za-z0-9_-], then ">" or "/>" or whitespace and anything but "<" up to
 * the first ">". A candidate that fails stops at the next "<" (where the caller looks next), so the
 * whole input is scanned in linear time.
 */
function tagAt(input: string, start: number): Tag | null {
  const n = input.length;
  let i = start + 1;
  const closing = input.charCodeAt(i) === 0x2f;
  if (closing) i++;
  if (i >= n || !isAsciiLetter(input.charCodeAt(i))) return null;
  const nameStart = i;
  while (i < n && isNameChar(input.charCodeAt(i))) i++;
  const name = input.slice(nameStart, i);
  const c = input.charCodeAt(i);
  if (c === 0x3e) return { start, text: input.slice(start, i + 1), closing, name, attrs: '', selfClosing: false, end: i + 1 };
  if (c === 0x2f) {
    if (input.charCodeAt(i + 1) !== 0x3e) return null;
    return { start, text: input.slice(start, i + 2), closing, name, attrs: '', selfClosing: true, end: i + 2 };
  }
  if (i >= n || !isSpace(c)) return null;
  const bodyStart = i;
  while (i < n) {
    const d = input.charCodeAt(i);
    if (d === 0x3c) return null;
    if (d === 0x3e) break;
    i++;
  }
  if (i >= n) return null;
  // Body is bodyStart..i: leading whitespace, attributes, trailing whitespace, an optional "/".
  let bodyEnd = i;
  let selfClosing = false;
  if (input.charCodeAt(bodyEnd - 1) === 0x2f) {
    selfClosing = true;
    bodyEnd--;
  }
  let attrEnd = bodyEnd;
  while (attrEnd > bodyStart && isSpace(input.charCodeAt(attrEnd - 1))) attrEnd--;
  // All whitespace: the whitespace itself (the attributes are empty either way).
  const attrs = attrEnd === bodyStart ? input.slice(bodyStart, bodyEnd) : input.slice(bodyStart, attrEnd);
  return { start, text: input.slice(start, i + 1), closing, name, attrs, selfClosing, end: i + 1 };
}

function invalid(tag: string, why: string): ApiError {
  return new ApiError('INVALID_MARKUP', { message: `Invalid markup ${tag}: ${why}.`, details: { provided: tag } });
}

/** The tags of the input in order, whatever their names; everything between them is text. */
export function* findTags(input: string): Generator<Tag> {
  for (let lt = input.indexOf('<'); lt !== -1; lt = input.indexOf('<', lt + 1)) {
    const found = tagAt(input, lt);
    if (!found) continue;
    yield found;
    lt = found.end - 1;
  }
}

export function parseBreakTime(value: string, tag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)\s*$/i.exec(value);
  if (!m || m[1] === undefined || m[2] === undefined) throw invalid(tag, 'time must be like "1.5s" or "500ms"');
  const n = Number(m[1]);
  return m[2].toLowerCase() === 'ms' ? n / 1000 : n;
}

export function parseMarkup(input: string): ParsedMarkup {
  const items: MarkupItem[] = [];
  const open: Array<{ name: SpanTag; tag: string }> = [];
  let plain = '';
  let hasBreaks = false;
  let hasExpressions = false;
  let last = 0;

  const inside = (name: SpanTag) => open.some((o) => o.name === name);
  const pushText = (raw: string) => {
    if (raw === '') return;
    plain += raw;
    const whisper = inside('whisper');
    const emphasis = inside('emphasis');
    const prev = items[items.length - 1];
    if (prev && prev.type === 'text' && prev.whisper === whisper && prev.emphasis === emphasis) prev.text += raw;
    else items.push({ type: 'text', text: raw, whisper, emphasis });
  };

  for (const found of findTags(input)) {
    const { text: tag, closing: slash, attrs, selfClosing: selfClose } = found;
    const name = found.name.toLowerCase();
    pushText(input.slice(last, found.start));
    last = found.end;

    if (name === 'break') {
      if (slash) throw invalid(tag, 'break is a self-closing tag: <break time="1s"/>');
      const t = BREAK_TIME.exec(attrs);
      if (!t) throw invalid(tag, 'break needs a time attribute, e.g. <break time="500ms"/>');
      const requested = parseBreakTime(t[1] ?? t[2] ?? '', tag);
      items.push({ type: 'break', seconds: Math.min(requested, MAX_BREAK_SECONDS), requested });
      hasBreaks = true;
      continue;
    }
    if ((VOCALIZATIONS as readonly string[]).includes(name)) {
      if (slash) throw invalid(tag, `<${name}> stands alone and has no closing tag`);
      if (attrs.trim() !== '') throw invalid(tag, `<${name}> takes no attributes`);
      items.push({ type: 'vocal', kind: name as Vocalization, whisper: inside('whisper') });
      hasExpressions = true;
      continue;
    }
    if ((SPAN_TAGS as readonly string[]).includes(name)) {
      const span = name as SpanTag;
      if (attrs.trim() !== '' || selfClose) throw invalid(tag, `use <${span}>...</${span}> without attributes`);
      hasExpressions = true;
      if (!slash) {
        if (inside(span)) throw invalid(tag, `<${span}> is already open`);
        open.push({ name: span, tag });
        continue;
      }
      const top = open[open.length - 1];
      if (!top || top.name !== span) throw invalid(tag, top ? `expected </${top.name}> first` : `no open <${span}>`);
      open.pop();
      continue;
    }
    throw invalid(tag, `unknown tag; supported: break, ${[...VOCALIZATIONS, ...SPAN_TAGS].join(', ')}`);
  }
  pushText(input.slice(last));
  const unclosed = open[open.length - 1];
  if (unclosed) throw invalid(unclosed.tag, `<${unclosed.name}> is never closed`);
  return { items, plainText: plain, hasBreaks, hasExpressions };
}

/** Splits items at break tags: the segments synthesized in parallel and the silences between them. */
export function splitAtBreaks(items: MarkupItem[]): { segments: MarkupItem[][]; silences: number[] } {
  const segments: MarkupItem[][] = [[]];
  const silences: number[] = [];
  for (const item of items) {
    if (item.type === 'break') {
      silences.push(item.seconds);
      segments.push([]);
    } else {
      segments[segments.length - 1]!.push(item);
    }
  }
  return { segments, silences };
}

/** Items without their break tags (streaming strips breaks silently, docs/interface.md). */
export function withoutBreaks(items: MarkupItem[]): MarkupItem[] {
  const out: MarkupItem[] = [];
  for (const item of items) {
    if (item.type === 'break') continue;
    const prev = out[out.length - 1];
    if (item.type === 'text' && prev?.type === 'text' && prev.whisper === item.whisper && prev.emphasis === item.emphasis) {
      out[out.length - 1] = { ...prev, text: prev.text + item.text };
    } else out.push(item);
  }
  return out;
}
