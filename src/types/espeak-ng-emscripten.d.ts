// The package ships no types; Parla uses only its default export (the module initializer).
declare module '@echogarden/espeak-ng-emscripten' {
  const initialize: () => Promise<unknown>;
  export default initialize;
}
