// The arguments of `node` for a Parla command a test runs as its own process (`parla serve`,
// `parla accounts ...`). scripts/run-tests.mjs sets PARLA_TEST_COMPILED when dist/ was built after
// the last change to any source (each src/ file older than its compiled file): then the compiled
// CLI, which starts in about half the CPU of tsx compiling and hooking every module; otherwise,
// and when a file runs outside the runner, the sources through tsx. Either way the process runs
// the code as it is now.
export function parlaArgs(args: string[]): string[] {
  return process.env.PARLA_TEST_COMPILED === '1' ? ['dist/src/cli/run.js', ...args] : ['--import', 'tsx', 'src/cli/run.ts', ...args];
}
