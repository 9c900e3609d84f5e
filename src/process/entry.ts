// Where a helper process Parla forks (the spawner, the decoders) starts from. Compiled, the
// JavaScript next to the parent's module. From the TypeScript sources (tests, `tsx`), the source
// through tsx; but under the test runner with dist/ built after every source change
// (PARLA_TEST_COMPILED, test/helpers/parla-command.ts), its compiled twin in dist/: the same code,
// without tsx compiling and hooking every module of every helper of every test file (decision #78).

export interface HelperEntry {
  file: URL;
  /** Whether the process needs tsx's hooks (`--import tsx`). */
  tsx: boolean;
}

/** `name`: the helper's module beside `parentUrl`, without its extension. */
export function helperEntry(parentUrl: string, name: string): HelperEntry {
  if (!parentUrl.endsWith('.ts')) return { file: new URL(`./${name}.js`, parentUrl), tsx: false };
  const source = new URL(`./${name}.ts`, parentUrl);
  if (process.env.PARLA_TEST_COMPILED !== '1') return { file: source, tsx: true };
  const at = source.href.lastIndexOf('/src/');
  return { file: new URL(`${source.href.slice(0, at)}/dist${source.href.slice(at, -3)}.js`), tsx: false };
}
