// The dashboard as a person uses it, in real headless Chromium (Debian's chromium driven by
// playwright-core) against a real Parla server on a loopback port: sign in, create a key and use
// it, revoke it, speak and transcribe in the playground, read the usage chart, sign out.
// Screenshots of every page go to test-output/screenshots/ (desktop, and phone-sized).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { flite, soxConcat } from '../helpers/speech.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { accountWithPassword, PASSWORD } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(PROJECT_ROOT, 'test-output', 'screenshots');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

let t: TestApp;
let base: string;
let email: string;
let accountId: string;
let context: BrowserContext;
let page: Page;
let profile: string;
/** The key created in the browser, and how the list shows it. */
let createdKey = '';
const KEY_NAME = 'Browser test key';
const SENTENCE = 'The quick brown fox jumps over the lazy dog.';
/** What Chromium's fake microphone plays: the sentence once, between short silences. */
let microphoneWav = '';

async function shot(name: string): Promise<void> {
  // From the top: a full-page capture of a scrolled page draws the sticky header mid-page.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** A request to the API with an API key, as a client program would send it. */
async function apiWithKey(key: string, url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${url}`, { headers: { 'X-API-Key': key } });
  return { status: res.status, body: await res.json() };
}

/** Uncaught errors and Content-Security-Policy violations in the page: there must be none. */
const pageErrors: string[] = [];

/**
 * Waits until a page expression is truthy. Polled from here with page.evaluate (a DevTools
 * evaluation): waitForFunction with a string would eval() inside the page, which the
 * dashboard's Content-Security-Policy rightly forbids.
 */
async function until(expression: string, timeout = 20_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for: ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const row = (name: string) => page.locator('tbody tr', { has: page.locator('th', { hasText: name }) });

before(async () => {
  assert.ok(existsSync(CHROMIUM), 'Debian chromium is needed: PARLA_SETUP_TEST_DEPS=1 bash scripts/setup.sh installs it');
  // Never test a stale bundle: a no-op when the build is up to date.
  execFileSync('bash', ['scripts/build-dashboard.sh'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  mkdirSync(SHOTS, { recursive: true });

  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ email, accountId } = await accountWithPassword(t, { credits: 100_000, testCredits: 100_000 }));
  void t.services.registry.whenReady();

  microphoneWav = soxConcat([flite('a'), flite(SENTENCE), flite('a')], 0.4);
  profile = mkdtempSync(path.join(tmpdir(), 'parla-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // A microphone for the recording test: a fake device that plays a WAV file once.
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphoneWav}%noloop`,
    ],
    viewport: DESKTOP,
    baseURL: base,
    // The copy button writes to the clipboard, which needs the permission in headless Chromium.
    permissions: ['clipboard-read', 'clipboard-write', 'microphone'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) pageErrors.push(msg.text());
  });
});

after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await t?.close();
});

test('signed out, /dashboard shows the sign-in page; a wrong password is refused, the right one signs in', async () => {
  await page.goto('/dashboard');
  await page.waitForURL('**/dashboard/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /SIGN_IN_FAILED/);
  await shot('sign-in');

  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByLabel('Password').press('Enter');
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  assert.match(page.url(), /\/dashboard\/keys$/);
});

test('create a key: shown once with a warning and a copy button, and it works against the API', async () => {
  await page.getByLabel('Name').fill(KEY_NAME);
  await page.getByRole('button', { name: 'Create key' }).click();
  const field = page.locator('#new-key-value');
  await field.waitFor();
  createdKey = await field.inputValue();
  assert.match(createdKey, /^svc_live_[A-Za-z0-9]{40}$/);
  assert.match(await page.locator('.new-key').innerText(), /you will not see this key again/i);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), createdKey);
  await shot('keys-created');

  const models = await apiWithKey(createdKey, '/api/v1/models');
  assert.equal(models.status, 200, JSON.stringify(models.body));
  assert.ok(models.body.models.length >= 5);

  await page.getByRole('button', { name: 'I have saved it' }).click();
  await page.locator('#new-key-value').waitFor({ state: 'detached' });
  // The list: the key with its prefix, mode, state and counters; the full key appears nowhere.
  const listed = row(KEY_NAME);
  await listed.waitFor();
  const text = await listed.innerText();
  const prefix = (await listed.locator('code').innerText()).replace('…', '');
  assert.ok(prefix.length >= 12 && createdKey.startsWith(prefix), `${prefix} is the start of the key`);
  assert.match(text, /live/i);
  assert.match(text, /active/i);
  assert.ok(!(await page.content()).includes(createdKey), 'the full key is gone from the page');
  // The request made above shows in the list after a reload.
  await page.reload();
  await row(KEY_NAME).waitFor();
  assert.notEqual(await row(KEY_NAME).locator('[data-label="Last used"]').innerText(), 'Never');
});

test('revoke: a confirmation dialog (Escape cancels), then the API refuses the key', async () => {
  const revokeButton = row(KEY_NAME).getByRole('button', { name: `Revoke key ${KEY_NAME}` });
  await revokeButton.click();
  const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
  await dialog.waitFor();
  // The safe choice has the focus, and Escape closes without revoking.
  assert.equal(await page.evaluate('document.activeElement.textContent'), 'Cancel');
  await shot('keys-revoke-dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(
    await page.evaluate('document.activeElement.getAttribute("aria-label")'),
    `Revoke key ${KEY_NAME}`,
    'focus returns to the button',
  );
  assert.equal((await apiWithKey(createdKey, '/api/v1/models')).status, 200);

  await revokeButton.click();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await row(KEY_NAME).locator('.badge.state-revoked').waitFor();
  await page
    .getByRole('status')
    .getByText(/revoked/)
    .waitFor();
  await shot('keys');

  const refused = await apiWithKey(createdKey, '/api/v1/models');
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.code, 'AUTH_REVOKED_API_KEY');
});

test('playground, text to speech: the voice list follows model and language, the audio plays, credits are shown', async () => {
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
  const selected = 'document.querySelector("#tts-voice").selectedOptions[0]?.textContent';
  await until('document.querySelectorAll("#tts-voice option").length === 30');
  const englishVoice = await page.locator('#tts-voice').inputValue();
  const englishName = String(await page.evaluate(selected));

  // Another language: the same Aura voice under its name in that language.
  await page.locator('#tts-language').selectOption('de');
  await until(`${selected} !== ${JSON.stringify(englishName)}`);
  assert.equal(await page.locator('#tts-voice').inputValue(), englishVoice);
  // rapid-flash: its 17 served languages (no Thai, decision #41) and its own few voices per language.
  await page.locator('#tts-model').selectOption('rapid-flash');
  await until('document.querySelectorAll("#tts-language option").length === 17');
  await until('document.querySelectorAll("#tts-voice option").length < 30');
  await page.locator('#tts-model').selectOption('aura-prime');
  await until('document.querySelectorAll("#tts-voice option").length === 30');
  await page.locator('#tts-language').selectOption('en-US');
  await until(`${selected} === ${JSON.stringify(englishName)}`);

  // The voice sample: the service's public preview of the selected voice, played in the page.
  const sample = page.waitForResponse((r) => r.url().includes('/preview?'));
  await page.getByRole('button', { name: /^Hear a sample of / }).click();
  const sampleResponse = await sample;
  assert.equal(sampleResponse.status(), 200);
  assert.match(sampleResponse.url(), /language=en-US&model=aura-prime/);

  await page
    .locator('#tts-text')
    .fill('Hello from the Parla dashboard. <break time="300ms"/> The quick brown fox jumps over the lazy dog.');
  await page.getByRole('button', { name: 'Speak' }).click();
  await until('document.querySelector("#tts-audio")?.duration > 0', 30_000);
  const duration = Number(await page.evaluate('document.querySelector("#tts-audio").duration'));
  assert.ok(duration > 2 && duration < 15, `audio of ${duration} s`);
  const credits = await page.locator('.result [data-testid="credits-used"]').first().innerText();
  assert.match(credits, /\d+ credits used/);
  const download = page.getByRole('link', { name: /Download WAV/ });
  assert.match((await download.getAttribute('href')) ?? '', /^blob:/);
  assert.match((await download.getAttribute('download')) ?? '', /\.wav$/);
  assert.equal(
    await page.locator('section[aria-labelledby="tts-title"] .notice.error').count(),
    0,
    'no error shown (sample playback included)',
  );

  // Word timings (on by default): the text's words under the player; playing from "fox" highlights
  // the word at the audio's current time, and the highlight moves on.
  const spoken = '[data-testid=spoken-words] .spoken-word';
  await until(`document.querySelectorAll(${JSON.stringify(spoken)}).length === 14`);
  const words = await page.locator(spoken).allInnerTexts();
  assert.deepEqual(words, [
    'Hello',
    'from',
    'the',
    'Parla',
    'dashboard',
    'The',
    'quick',
    'brown',
    'fox',
    'jumps',
    'over',
    'the',
    'lazy',
    'dog',
  ]);
  await page.locator(spoken).nth(8).click();
  await until('document.querySelector(".spoken-word.speaking")?.textContent === "fox"', 10_000);
  await until('["jumps", "over", "the", "lazy", "dog"].includes(document.querySelector(".spoken-word.speaking")?.textContent)', 10_000);
  const atNow = (await page.evaluate(`(() => {
    const a = document.querySelector("#tts-audio");
    const w = document.querySelector(".spoken-word.speaking");
    return w ? { t: a.currentTime, start: Number(w.dataset.start), end: Number(w.dataset.end) } : null;
  })()`)) as { t: number; start: number; end: number } | null;
  if (atNow)
    assert.ok(atNow.t >= atNow.start - 0.1 && atNow.t <= atNow.end + 0.1, `highlighted ${atNow.start}-${atNow.end} at ${atNow.t} s`);
  await shot('playground-tts');
});

test('playground, speech to text: an uploaded WAV file is transcribed with word timings', async () => {
  await t.services.registry.whenReady();
  await page.getByLabel('Audio file').setInputFiles(flite(SENTENCE));
  await page.getByRole('button', { name: 'Transcribe' }).click();
  const transcript = page.locator('blockquote[data-testid="transcript"]');
  await transcript.waitFor({ timeout: 30_000 });
  const text = (await transcript.innerText()).toLowerCase();
  for (const w of ['quick', 'brown', 'fox', 'lazy', 'dog']) assert.ok(text.includes(w), `"${w}" in "${text}"`);
  const words = page.locator('details.words tbody tr');
  assert.ok((await words.count()) >= 7);
  assert.match(await words.first().innerText(), /\d\.\d\d s/);
  assert.match(await page.locator('.result [data-testid="credits-used"]').last().innerText(), /\d+ credits used/);
  await shot('playground-stt');
});

test('playground, speech to text: a microphone recording (MediaRecorder, WebM/Opus) is transcribed', async (ctx) => {
  await page.getByText('Record', { exact: true }).click();
  await page.getByRole('button', { name: 'Start recording' }).click();
  await page.getByRole('button', { name: 'Stop recording' }).waitFor();
  // The fake microphone plays about 4 s: a short sound, the sentence, another short sound.
  await new Promise((r) => setTimeout(r, 4500));
  await page.getByRole('button', { name: 'Stop recording' }).click();
  await page.locator('audio.preview').waitFor();
  const shown = Number(await page.locator('[data-result]').getAttribute('data-result'));
  await page.getByRole('button', { name: 'Transcribe' }).click();
  await until(`document.querySelector("[data-result]")?.dataset.result === "${shown + 1}"`, 30_000);
  const text = (await page.locator('blockquote[data-testid="transcript"]').innerText()).toLowerCase();
  ctx.diagnostic(`recognized: ${text}`);
  const heard = ['quick', 'brown', 'fox', 'lazy', 'dog'].filter((w) => text.includes(w));
  assert.ok(heard.length >= 3, `the recording was understood: "${text}"`);
  assert.match(await page.locator('.result .muted.small').first().innerText(), /s of audio/);
});

test('usage: plan, balances, quota and the daily chart of the playground requests (test mode)', async () => {
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  await page.locator('.stats').first().waitFor();
  assert.match(await page.locator('.stats').first().innerText(), /pro/i);
  // The playground ran on test credits: both kinds of request show in the test chart.
  await page.getByText('Test', { exact: true }).click();
  await until(
    'document.querySelectorAll("svg[data-chart=credits] rect.tts").length > 0 && document.querySelectorAll("svg[data-chart=credits] rect.stt").length > 0',
  );
  await shot('usage');
  await page.getByRole('button', { name: 'Requests' }).click();
  await page.locator('svg[data-chart="requests"] rect.tts').first().waitFor();
  const meter = page.getByRole('meter', { name: 'Characters used this period' });
  assert.ok(Number(await meter.getAttribute('aria-valuenow')) > 0);
});

test('keyboard only: skip link, create a test key and revoke it, with visible focus throughout', async () => {
  // A fresh load: Tab starts from the top of the page.
  await page.goto('/dashboard/keys');
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  const active = (expr: string) => page.evaluate(`document.activeElement${expr}`);
  const outlined = async () => (await active(' && getComputedStyle(document.activeElement).outlineStyle')) !== 'none';

  await page.keyboard.press('Tab');
  assert.equal(await active('.textContent'), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await active('.id'), 'main');
  await page.keyboard.press('Tab');
  assert.equal(await active('.id'), 'key-name');
  await page.keyboard.type('Keyboard key');
  await page.keyboard.press('Tab');
  assert.equal(await active('.value'), 'live');
  assert.ok(await outlined(), 'the focused radio shows a focus ring');
  await page.keyboard.press('ArrowRight');
  assert.equal(await active('.value'), 'test');
  await page.keyboard.press('Tab');
  assert.equal(await active('.textContent'), 'Create key');
  assert.ok(await outlined(), 'the focused button shows a focus ring');
  await page.keyboard.press('Enter');
  await page.locator('#new-key-value').waitFor();
  // The panel takes focus in an effect that runs just after it is painted: wait for it, briefly.
  await until("document.activeElement && document.activeElement.id === 'new-key-title'", 2000).catch(() => undefined);
  assert.equal(await active('.id'), 'new-key-title', 'focus moves to the new key');
  assert.match(await page.locator('#new-key-value').inputValue(), /^svc_test_/);
  for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
  assert.equal(await active('.textContent'), 'I have saved it');
  await page.keyboard.press('Enter');

  await row('Keyboard key')
    .getByRole('button', { name: /Revoke/ })
    .focus();
  await page.keyboard.press('Enter');
  await page.getByRole('dialog').waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await active('.textContent'), 'Revoke key');
  await page.keyboard.press('Enter');
  await row('Keyboard key').locator('.badge.state-revoked').waitFor();
});

test('phone-sized screen: no sideways scrolling, every page readable; the dark theme', async () => {
  await page.setViewportSize(PHONE);
  for (const [link, name] of [
    ['Usage', 'usage-phone'],
    ['API keys', 'keys-phone'],
    ['Playground', 'playground-phone'],
  ] as const) {
    await page.getByRole('link', { name: link }).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForTimeout(100);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
    assert.ok(overflow <= 0, `${link}: ${overflow}px wider than the screen`);
    await shot(name);
  }
  await page.setViewportSize(DESKTOP);
  // The dark theme follows the system setting.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.locator('svg[data-chart]').waitFor();
  await shot('usage-dark');
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
  await shot('playground-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a session that ends on the server (expired, or the operator reset the password) brings back the sign-in page, then the page that was asked for', async () => {
  assert.ok((await t.services.store.deleteAccountSessions(accountId)) >= 1);
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.waitForURL('**/dashboard/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  assert.match(page.url(), /\/dashboard\/usage$/);
});

test('a sign-in in another tab replaces the session: this tab takes over its CSRF token and carries on', async () => {
  const other = await context.newPage();
  await other.goto('/dashboard/keys');
  const status = await other.evaluate(
    `fetch('/dashboard/api/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(${JSON.stringify({ email, password: PASSWORD })}) }).then((r) => r.status)`,
  );
  assert.equal(status, 200);
  await other.close();

  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('After another sign-in');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('#new-key-value').waitFor();
  await page.getByRole('button', { name: 'I have saved it' }).click();
  await row('After another sign-in').waitFor();
});

test('sign out: back to the sign-in page, and the session is gone', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/dashboard/sign-in');
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const status = Number(await page.evaluate('fetch("/dashboard/api/session").then((r) => r.status)'));
  assert.equal(status, 401);
  assert.deepEqual(pageErrors, []);
});
