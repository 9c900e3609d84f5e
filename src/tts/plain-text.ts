// Plain text as the compatible doors receive it (OpenAI speech, Deepgram speak REST and socket,
// Wyoming synthesize; decision #37, docs/compatibility.md): agents pipe a model's output straight
// into speech, with comparisons ("a<b"), HTML or XML-ish tags ("<div>", "<b>", "<think>",
// "<speak>") and markdown quotes. OpenAI, Deepgram and Piper speak such text; so does Parla: it is
// never refused, and Parla's own markup is not read on those doors (the native endpoints keep it).
//
// How it is read, as a person reading it aloud would:
// - A tag (an element's start or end as HTML writes it: "<name>", "</name>", "<name/>", or
//   "<name" with attributes that each have "=" and a value, then ">") is formatting, not words:
//   dropped, its content kept ("<b>bold</b>" is "bold"; "Use the <div> element" is "Use the
//   element"). "<b and c>" is no tag (its words have no "="): it is a comparison.
// - Any other "<" or ">" is a symbol: "<=" is "less than or equal to", ">=" "greater than or
//   equal to", "->" and "=>" "to", "<" "less than", ">" "greater than"; a ">" opening a line
//   (a markdown quote) is dropped.
// The result has no "<" or ">" left, so no engine reads a tag in it. One pass over the text
// (each character looked at a bounded number of times), as every scanner of user text here.

import { isAsciiLetter, isSpace } from './text-scan.js';

const isNameChar = (c: number) => isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d || c === 0x3a || c === 0x2e;

/**
 * Where the HTML-like tag starting at text[start] (a "<") ends (the index after its ">"), or -1.
 * Stops at the first "<" or line end inside a candidate, so the caller's scan stays linear.
 */
export function htmlTagEnd(text: string, start: number): number {
  const n = text.length;
  let i = start + 1;
  if (text.charCodeAt(i) === 0x2f) i++;
  if (i >= n || !isAsciiLetter(text.charCodeAt(i))) return -1;
  while (i < n && isNameChar(text.charCodeAt(i))) i++;
  // Attributes: whitespace, a name, "=", then a quoted or bare value; each one needs its "=".
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x3e) return i + 1;
    if (c === 0x2f) return text.charCodeAt(i + 1) === 0x3e ? i + 2 : -1;
    if (i >= n || !isSpace(c)) return -1;
    while (i < n && isSpace(text.charCodeAt(i)) && text.charCodeAt(i) !== 0x0a) i++;
    const a = text.charCodeAt(i);
    if (a === 0x3e || a === 0x2f) continue;
    if (!isAsciiLetter(a)) return -1;
    while (i < n && isNameChar(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x3d) return -1;
    i++;
    const q = text.charCodeAt(i);
    if (q === 0x22 || q === 0x27) {
      i++;
      while (i < n && text.charCodeAt(i) !== q) {
        const d = text.charCodeAt(i);
        if (d === 0x3c || d === 0x3e || d === 0x0a) return -1;
        i++;
      }
      if (i >= n) return -1;
      i++;
    } else {
      const valueStart = i;
      while (
        i < n &&
        !isSpace(text.charCodeAt(i)) &&
        text.charCodeAt(i) !== 0x3e &&
        text.charCodeAt(i) !== 0x3c &&
        text.charCodeAt(i) !== 0x22 &&
        text.charCodeAt(i) !== 0x27
      )
        i++;
      if (i === valueStart) return -1;
      if (text.charCodeAt(i) === 0x2f && text.charCodeAt(i + 1) !== 0x3e) return -1;
    }
  }
}

/**
 * `text` with its symbols spelled out and its tags dropped: what the engines are given. A text
 * that is nothing but tags ("<think></think>") is read with its tags spelled out instead, so
 * there is always something to say and nothing is refused.
 */
export function speakablePlainText(text: string): string {
  if (text.indexOf('<') === -1 && text.indexOf('>') === -1) return text;
  const spoken = readAloud(text, true);
  return /[\p{L}\p{N}]/u.test(spoken) ? spoken : readAloud(text, false);
}

function readAloud(text: string, dropTags: boolean): string {
  // Pieces joined once at the end (reading the last character of a growing string would flatten
  // it every time: quadratic); `tail` is the last character written, -1 before any.
  const out: string[] = [];
  let tail = -1;
  let last = 0;
  const copy = (at: number) => {
    if (at > last) {
      out.push(text.slice(last, at));
      tail = text.charCodeAt(at - 1);
    }
  };
  // A word put in place of a symbol gets a space on each side unless one is there already.
  const say = (at: number, end: number, words: string) => {
    copy(at);
    const before = tail === -1 || isSpace(tail) ? '' : ' ';
    const after = end >= text.length || isSpace(text.charCodeAt(end)) ? '' : ' ';
    out.push(`${before}${words}${after}`);
    tail = after === ' ' ? 0x20 : words.charCodeAt(words.length - 1);
    last = end;
  };
  const drop = (at: number, end: number) => {
    copy(at);
    // A space where the tag was, so "a<br/>b" does not join two words into one.
    if (tail !== -1 && !isSpace(tail) && end < text.length && !isSpace(text.charCodeAt(end))) {
      out.push(' ');
      tail = 0x20;
    }
    last = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3c) {
      const end = dropTags ? htmlTagEnd(text, i) : -1;
      if (end !== -1) {
        drop(i, end);
        i = end - 1;
        continue;
      }
      const next = text.charCodeAt(i + 1);
      if (next === 0x3d) say(i, i + 2, 'less than or equal to');
      else say(i, i + 1, 'less than');
      if (next === 0x3d) i++;
    } else if (c === 0x3e) {
      const prev = i > 0 ? text.charCodeAt(i - 1) : -1;
      if (prev === -1 || prev === 0x0a) {
        drop(i, i + 1);
      } else if ((prev === 0x2d || prev === 0x3d) && i - 1 >= last) {
        // "->" and "=>": the arrow's first character goes with it.
        say(i - 1, i + 1, 'to');
      } else if (text.charCodeAt(i + 1) === 0x3d) {
        say(i, i + 2, 'greater than or equal to');
        i++;
      } else {
        say(i, i + 1, 'greater than');
      }
    }
  }
  copy(text.length);
  return out.join('');
}
