// Builds the dashboard into dist/dashboard, served by Parla at /dashboard (src/dashboard/static.ts).
import { defineConfig } from 'vite';

const here = (p: string) => decodeURIComponent(new URL(p, import.meta.url).pathname);

export default defineConfig({
  root: here('.'),
  base: '/dashboard/',
  publicDir: here('public'),
  // Preact's automatic JSX runtime: a fraction of React's size, the same component model.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../../../dist/dashboard'),
    emptyOutDir: true,
    target: 'es2022',
    // Small enough to inline nothing: every asset is its own hashed, long-cached file, and the
    // Content-Security-Policy needs no data: URLs.
    assetsInlineLimit: 0,
    sourcemap: true,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
