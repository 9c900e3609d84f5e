// The playground's live panel in real headless Chromium (Debian's chromium driven by playwright-core)
// against a real Parla server: a fake microphone fed from a speech file, recorded by the browser's
// own MediaRecorder (WebM/Opus), streamed to Deepgram Flux's /v2/listen with a browser token the
// page asked for (never a key); the turns show as they happen and the words come back. The test
// also checks that no key was handed to the page and that the stream was billed to the playground.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { flite, padded, soxConcat, wordErrorRate } from '../helpers/speech.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { accountWithPassword, PASSWORD } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const SENTENCES = ['Good morning, the meeting starts at nine.', 'Please bring the quarterly report.'];

let t: TestApp;
let base: string;
let email: string;
let accountId: string;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];
const sockets: Array<{ url: string; protocols: string }> = [];

before(async () => {
  assert.ok(existsSync(CHROMIUM), 'Debian chromium is needed: PARLA_SETUP_TEST_DEPS=1 bash scripts/setup.sh installs it');
  execFileSync('bash', ['scripts/build-dashboard.sh'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ email, accountId } = await accountWithPassword(t, { credits: 100_000, testCredits: 100_000 }));
  await t.services.registry.whenReady();
  // Two sentences with a pause between (two turns), then silence; played once.
  const microphone = padded(
    soxConcat(
      SENTENCES.map((s) => flite(s)),
      1.5,
    ),
    0.5,
    3,
  );
  profile = mkdtempSync(path.join(tmpdir(), 'parla-chromium-live-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphone}%noloop`,
    ],
    baseURL: base,
    permissions: ['microphone'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) pageErrors.push(msg.text());
  });
  page.on('websocket', (ws) => {
    sockets.push({ url: ws.url(), protocols: '' });
    if (process.env.SHOW) {
      ws.on('framereceived', (f) => {
        const m = JSON.parse(String(f.payload));
        console.log('<', Date.now() % 100000, m.event ?? m.type, m.turn_index, m.audio_window_end, JSON.stringify(m.transcript));
      });
      ws.on('close', () => console.log('closed'));
    }
  });
});

after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await t?.close();
});

test('the live panel streams the microphone with a token and shows each turn as it happens, with the words said', async () => {
  await page.goto('/dashboard');
  await page.waitForURL('**/dashboard/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByLabel('Password').press('Enter');
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('heading', { name: 'Live: turns as you speak' }).waitFor();

  const tokenRequest = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/tokens'));
  await page.getByRole('button', { name: 'Start live' }).click();
  const tokenResponse = await tokenRequest;
  assert.equal(tokenResponse.status(), 200);
  const token = ((await tokenResponse.json()) as { token: string }).token;
  assert.match(token, /^ek_/);
  await page.getByRole('button', { name: 'Stop live' }).waitFor();

  // A turn in progress shows before it is done, then both turns end with their words.
  await page.locator('[data-testid="live-turn"]').first().waitFor();
  const seenSpeaking = await page.locator('[data-testid="live-turn"][data-state="speaking"]').count();
  await page.locator('[data-testid="live-turn"][data-state="done"]').nth(1).waitFor({ timeout: 60_000 });
  const turns = await page.locator('[data-testid="live-turn"][data-state="done"] blockquote').allInnerTexts();
  assert.equal(turns.length, 2, JSON.stringify(turns));
  for (const [i, text] of turns.entries()) assert.ok(wordErrorRate(SENTENCES[i]!, text) < 0.5, `${SENTENCES[i]} / ${text}`);
  assert.ok(seenSpeaking >= 1, 'the first turn was shown while it was spoken');

  await page.getByRole('button', { name: 'Stop live' }).click();
  await page.getByRole('button', { name: 'Start live' }).waitFor();
  assert.deepEqual(pageErrors, []);

  // The socket carried the token, not a key, and the audio was billed to the playground's key.
  assert.ok(
    sockets.some((s) => s.url.includes('/v2/listen') && s.url.includes('encoding=opus')),
    JSON.stringify(sockets),
  );
  assert.ok(!sockets.some((s) => /svc_(live|test)_/.test(s.url)));
  let rows: any[] = [];
  for (let i = 0; i < 100 && rows.length === 0; i++) {
    rows = (await t.services.store.listUsage(accountId, 'test', 50)).filter((r) => r.kind === 'stt_realtime');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(rows.length, 1);
  assert.ok(rows[0].credits > 0);
});
