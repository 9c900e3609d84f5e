// One compatibility bench case: the same work through the native API and through a dialect, so
// the runner (bench/compat/) can time both side by side. Each function does one request and
// throws unless it succeeded.

export interface CompatContext {
  baseUrl: string;
  apiKey: string;
  realtimeUrl: string;
  ca: string;
}

export interface CompatCase {
  name: string;
  native(ctx: CompatContext): Promise<void>;
  dialect(ctx: CompatContext): Promise<void>;
}
