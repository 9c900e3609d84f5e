// The account domain types as the edges (HTTP, dashboard, TTS ports) still import them. They live
// in src/domain/accounts.ts, below storage; this re-export keeps those importers unchanged while
// other work is under way in their files. New code imports src/domain/accounts.ts.

export * from '../domain/accounts.js';
