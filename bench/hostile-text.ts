// How long the TTS text parsers take on hostile input of growing size (issue 19): each should grow
// linearly. Run: node --import tsx bench/hostile-text.ts. The old tag regex took 1.6 s on "<a" +
// 2,000 spaces and 10.9 s on 4,000 (cubic); the old sentence regex 0.44 s on 20,000 dots (quadratic).
import { parseMarkup } from '../src/tts/markup.js';
import { splitSentences } from '../src/tts/sentences.js';
import { cleanTtsText } from '../src/tts/clean-text.js';

const inputs: Record<string, (n: number) => string> = {
  'markup: "<a" + spaces': (n) => '<a' + ' '.repeat(n - 2),
  'markup: "<a " repeated': (n) => '<a '.repeat(Math.floor(n / 3)),
  'markup: "<laugh/>" repeated': (n) => '<laugh/>'.repeat(Math.floor(n / 8)),
  'sentences: dots': (n) => '.'.repeat(n - 1) + 'x',
  'sentences: "Dr. " repeated': (n) => 'Dr. '.repeat(Math.floor(n / 4)),
  'clean: NUL and lone surrogates': (n) => 'a\u0000\ud800'.repeat(Math.floor(n / 3)),
};

function timeMs(run: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    try {
      run();
    } catch {
      // INVALID_MARKUP is an answer too.
    }
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const sizes = [5_000, 50_000, 500_000];
console.log(['input', ...sizes.map((n) => `${n} chars (ms)`)].join(' | '));
for (const [name, make] of Object.entries(inputs)) {
  const parse = name.startsWith('sentences') ? splitSentences : name.startsWith('clean') ? cleanTtsText : parseMarkup;
  console.log([name, ...sizes.map((n) => timeMs(() => parse(make(n))).toFixed(2))].join(' | '));
}
