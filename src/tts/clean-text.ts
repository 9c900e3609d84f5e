// TTS text is cleaned before anything else sees it (issue 19: "a\u0000b" reached Flite as a process
// argument and failed the request with 500 ENGINE_ERROR). What no engine can take, and no speech
// needs, is removed rather than refused, so text pasted from anywhere still speaks: control
// characters other than tab, line feed and carriage return (C0, DEL, C1), lone surrogates (not
// text; Node would turn them into U+FFFD on the way to a process) and Unicode noncharacters.
// Removed characters are not billed. Engines get the rest as it is: Flite as the argument after
// "-t" (taken literally, a leading "-" included), eSpeak in a file (its SSML input escaped),
// sherpa-onnx in memory.

function removable(c: number): boolean {
  if (c < 0x20) return c !== 0x09 && c !== 0x0a && c !== 0x0d;
  if (c >= 0x7f && c <= 0x9f) return true;
  return c >= 0xfdd0 && c <= 0xfdef;
}

/** The text without the characters above; the same string when there are none. */
export function cleanTtsText(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let drop = 1;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        // A pair: a noncharacter when its code point ends in FFFE or FFFF (U+1FFFE, ...).
        const low = (((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000) & 0xffff;
        if (low < 0xfffe) {
          i++;
          continue;
        }
        drop = 2;
      }
    } else if (!(c >= 0xdc00 && c <= 0xdfff) && !removable(c) && c !== 0xfffe && c !== 0xffff) {
      continue;
    }
    out += text.slice(from, i);
    i += drop - 1;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
