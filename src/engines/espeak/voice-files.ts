// Which eSpeak voice file a name means, for both eSpeak builds: eSpeak opens a voice by its file
// name ("en", "gmw/en-US"), while callers may give a language name a voice declares ("en-gb",
// "fr-fr", "no"), which goes to the voice with the best (lowest) priority for it.

export interface VoiceFile {
  /** The voice file, e.g. "gmw/en-US". */
  file: string;
  languages: ReadonlyArray<{ name: string; priority: number }>;
}

/** The voice file `name` (no variant) means, or null; matching is case-insensitive. */
export function voiceFileFor(voices: readonly VoiceFile[], name: string): string | null {
  const wanted = name.toLowerCase();
  const byFile = voices.find((v) => v.file.toLowerCase() === wanted || v.file.split('/').pop()!.toLowerCase() === wanted);
  if (byFile) return byFile.file;
  let best: { file: string; priority: number } | null = null;
  for (const v of voices) {
    for (const l of v.languages) {
      if (l.name.toLowerCase() === wanted && (!best || l.priority < best.priority)) best = { file: v.file, priority: l.priority };
    }
  }
  return best?.file ?? null;
}
