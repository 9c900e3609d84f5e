// The package ships no types; Parla uses only the builder and the token fields it reads.
declare module 'kuromoji' {
  export interface IpadicToken {
    surface_form: string;
    /** Katakana reading, or "*" / undefined for unknown words. */
    reading?: string;
    /** Katakana as spoken (は as particle -> ワ, long vowels as ー), or "*" / undefined. */
    pronunciation?: string;
  }
  export interface Tokenizer {
    tokenize(text: string): IpadicToken[];
  }
  export interface Builder {
    build(callback: (err: Error | null, tokenizer: Tokenizer) => void): void;
  }
  const kuromoji: { builder(options: { dicPath: string }): Builder };
  export default kuromoji;
}
