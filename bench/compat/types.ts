// One compatibility benchmark case: the same work through the native interface and through a
// dialect, so a runner can time both side by side (bench/compat/*.ts export `cases`).

export type CompatContext = { baseUrl: string; apiKey: string; realtimeUrl: string; ca: string };

export type CompatCase = { name: string; native(ctx: CompatContext): Promise<void>; dialect(ctx: CompatContext): Promise<void> };
