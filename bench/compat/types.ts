// One compatibility benchmark case: the same work through the native API and through a dialect.
export type CompatContext = { baseUrl: string; apiKey: string; realtimeUrl: string; ca: string };
export type CompatCase = { name: string; native(ctx: CompatContext): Promise<void>; dialect(ctx: CompatContext): Promise<void> };
