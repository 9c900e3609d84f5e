// Character classes for the hand-written text scanners of src/tts (markup tags, sentence ends):
// scanning by hand keeps them linear in the input, where regexes with overlapping quantifiers
// backtracked (issue 19: a 5,000-character text froze the event loop for 41 s).

/** JavaScript's \s (what the markup and sentence rules were written with), one UTF-16 unit. */
export function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** ASCII letter. */
export function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** Characters that end a sentence: . ! ? and the CJK full stops, ellipsis. */
export function isSentenceEnd(c: number): boolean {
  return c === 0x2e || c === 0x21 || c === 0x3f || c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0x2026;
}

/** Closing quotes and brackets that may follow a sentence end: " ' ” ’ ) ]. */
export function isCloser(c: number): boolean {
  return c === 0x22 || c === 0x27 || c === 0x201d || c === 0x2019 || c === 0x29 || c === 0x5d;
}
