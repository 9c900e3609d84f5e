// Splits text into sentences for progressive streaming: audio can start after the first
// sentence instead of after the whole text. Over-long sentences are cut at clause boundaries
// (then spaces) so no single synthesis call delays the stream for long.

const MAX_CHUNK = 300;
// Common abbreviations whose period does not end a sentence.
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'e.g', 'i.e', 'no', 'fig', 'inc', 'ltd', 'co', 'mt']);

function cutLong(sentence: string): string[] {
  if (sentence.length <= MAX_CHUNK) return [sentence];
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_CHUNK) {
    const window = rest.slice(0, MAX_CHUNK);
    let cut = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '), window.lastIndexOf(': '));
    if (cut < MAX_CHUNK / 3) cut = window.lastIndexOf(' ');
    if (cut < MAX_CHUNK / 3) cut = MAX_CHUNK - 1;
    out.push(rest.slice(0, cut + 1));
    rest = rest.slice(cut + 1);
  }
  if (rest.trim() !== '') out.push(rest);
  return out;
}

/** Sentences in order; concatenated they give back the input exactly. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  const re = /([.!?。！？…]+)(["'”’)\]]*)(\s+|$)/g;
  for (const m of text.matchAll(re)) {
    const end = m.index + m[0].length;
    if (m[1] === '.' ) {
      const before = text.slice(start, m.index);
      const lastWord = /([A-Za-z.]+)$/.exec(before)?.[1]?.toLowerCase() ?? '';
      // "Dr. Smith", "e.g. this", "3.5" (no space so never matched), single initials "J. Doe".
      if (ABBREVIATIONS.has(lastWord) || /^[a-z]$/i.test(lastWord)) {
        if (end < text.length) continue;
      }
    }
    out.push(...cutLong(text.slice(start, end)));
    start = end;
  }
  if (start < text.length) out.push(...cutLong(text.slice(start)));
  return out.filter((s) => s.length > 0);
}
