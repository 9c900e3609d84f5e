// The package ships no types; Parla uses only its default export (the module initializer).
declare module '@echogarden/fvad-wasm' {
  const initialize: () => Promise<unknown>;
  export default initialize;
}
