// Text length as the native API counts it (its JSON schema's maxLength counts code points: a
// character outside the Basic Multilingual Plane, an emoji, is one), for the edges that check the
// same limit by hand (Wyoming's synthesize). One linear pass, no copy of the text.

/** The number of code points in `s` (an unpaired surrogate counts as one). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
