// The shape of a case of bench/compat.ts: one piece of work done through a compatible dialect and
// through the native endpoint, against the same running server. A case file in bench/compat/
// exports `cases: CompatCase[]`; the runner times both sides of every case, taking turns.

export interface CompatContext {
  baseUrl: string;
  apiKey: string;
  realtimeUrl: string;
  ca: string /* realtime TLS cert PEM */;
}

export interface CompatCase {
  name: string;
  native(ctx: CompatContext): Promise<void>;
  dialect(ctx: CompatContext): Promise<void>;
}
