// Text that remembers where each of its characters came from. The normalization step rewrites
// "1,250" as words and "Dr." as "Doctor"; word timings are found on that spoken form, but the
// answer gives them for the words of the text as written (issue 29, item 4). Every rewrite goes
// through `mappedReplace`, which keeps, for each character of the result, the range of the
// original text it stands for: a character left alone keeps its own, a replacement's characters
// all take the range of what they replaced.

export interface MappedText {
  text: string;
  /** For each UTF-16 unit of `text`: the first original unit it stands for. */
  from: Int32Array;
  /** ... and one past the last. */
  to: Int32Array;
}

export function identityMapped(text: string): MappedText {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  for (let i = 0; i < text.length; i++) {
    from[i] = i;
    to[i] = i + 1;
  }
  return { text, from, to };
}

/** A String.prototype.replace callback (its groups, offset and whole string typed as its author wants). */
type Replacer = (match: string, ...rest: never[]) => string;

/** `t.text.replace(re, fn)` (same regular expression, same callback arguments), with the map carried along. */
export function mappedReplace(t: MappedText, re: RegExp, fn: Replacer): MappedText {
  const edits: Array<{ at: number; len: number; out: string }> = [];
  const text = t.text.replace(re, (...args: unknown[]) => {
    const match = args[0] as string;
    // The offset is the first number among the arguments (groups are strings or undefined).
    const at = args.find((a, i) => i > 0 && typeof a === 'number') as number;
    const out = (fn as (...a: unknown[]) => string)(...args);
    if (out !== match) edits.push({ at, len: match.length, out });
    return out;
  });
  if (edits.length === 0) return { text, from: t.from, to: t.to };
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let src = 0;
  let dst = 0;
  const copy = (until: number) => {
    for (; src < until; src++, dst++) {
      from[dst] = t.from[src]!;
      to[dst] = t.to[src]!;
    }
  };
  for (const e of edits) {
    copy(e.at);
    let a: number;
    let b: number;
    if (e.len > 0) {
      a = t.from[e.at]!;
      b = t.to[e.at]!;
      for (let k = e.at + 1; k < e.at + e.len; k++) {
        a = Math.min(a, t.from[k]!);
        b = Math.max(b, t.to[k]!);
      }
    } else {
      // An insertion stands for the point it was made at.
      a = e.at < t.from.length ? t.from[e.at]! : e.at > 0 ? t.to[e.at - 1]! : 0;
      b = a;
    }
    for (let k = 0; k < e.out.length; k++, dst++) {
      from[dst] = a;
      to[dst] = b;
    }
    src = e.at + e.len;
  }
  copy(t.text.length);
  return { text, from, to };
}
