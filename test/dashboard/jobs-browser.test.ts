// The dashboard's Jobs page in real headless Chromium (Debian's chromium driven by playwright-core)
// against a real Parla server with its job runner (one job at a time) on a loopback port: the
// account's jobs newest first, 20 to a page, a running job's progress moving on its own, the
// status filter, canceling from the page. Screenshots go to test-output/screenshots/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, librivox, soxConcat } from '../helpers/speech.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { startJobWork, type JobWork } from '../../src/jobs/background.js';
import { accountWithPassword, PASSWORD } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(PROJECT_ROOT, 'test-output', 'screenshots');

let t: TestApp;
let work: JobWork;
let base: string;
let email: string;
let apiKey: string;
let accountId: string;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];
/** Oldest first: a completed job, a long one (running while the test looks), then 20 queued. */
const ids: string[] = [];

async function upload(file: string, name: string): Promise<string> {
  const { body, contentType } = await multipart(readFileSync(file), { model: 'cipher-fast' }, name);
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/stt/jobs', headers: { 'x-api-key': apiKey, 'content-type': contentType }, payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().job.id as string;
}

/** Polled from here: the dashboard's Content-Security-Policy forbids the eval of waitForFunction(string). */
async function until(expression: string, timeout = 30_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for: ${expression}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const status = async (id: string) => (await t.services.jobs.queue.get(accountId, id))?.status;
const row = (id: string) => page.locator(`tr[data-job-id="${id}"]`);
const shownIds = async () => (await page.evaluate("[...document.querySelectorAll('tbody tr')].map((r) => r.dataset.jobId)")) as string[];

before(async () => {
  assert.ok(existsSync(CHROMIUM), 'Debian chromium is needed: PARLA_SETUP_TEST_DEPS=1 bash scripts/setup.sh installs it');
  execFileSync('bash', ['scripts/build-dashboard.sh'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  mkdirSync(SHOTS, { recursive: true });
  // A short lease: the runner reports progress with every heartbeat, a quarter of it.
  t = await createTestApp({ PARLA_JOB_CONCURRENCY: '1', PARLA_JOB_LEASE_SECONDS: '4' });
  work = startJobWork(t.services, { pollMs: 200 });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ email, apiKey, accountId } = await accountWithPassword(t, { credits: 1_000_000 }));

  const fox = flite('The quick brown fox jumps over the lazy dog.');
  ids.push(await upload(fox, 'fox.wav'));
  for (let i = 0; i < 600 && (await status(ids[0]!)) !== 'completed'; i++) await new Promise((r) => setTimeout(r, 200));
  // About 80 s of speech (some 40 s of work here): still running while the test looks at the page, and the 20 behind it wait.
  ids.push(await upload(soxConcat(Array(12).fill(librivox()[0]!.file)), 'long-talk.wav'));
  for (let i = 0; i < 20; i++) {
    ids.push(await upload(fox, `fox-${i}.wav`));
    // Jobs of one millisecond are listed by id: a pause keeps the creation order the list order.
    await new Promise((r) => setTimeout(r, 3));
  }

  profile = mkdtempSync(path.join(tmpdir(), 'parla-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 860 },
    baseURL: base,
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
  await work?.stop();
  await t?.close();
});

test('the Jobs page lists the account\'s jobs newest first, 20 to a page; Older and Newer page through them; a running job\'s progress moves on its own', async () => {
  assert.equal(await status(ids[0]!), 'completed', 'the first job completed before the page opened');
  await page.goto('/dashboard/jobs');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
  assert.match(page.url(), /\/dashboard\/jobs$/);
  assert.equal(await page.getByRole('link', { name: 'Jobs' }).getAttribute('aria-current'), 'page');

  await row(ids[21]!).waitFor();
  assert.deepEqual(await shownIds(), ids.slice(2).reverse(), 'the 20 newest, newest first');
  const newest = await row(ids[21]!).innerText();
  assert.match(newest, /queued/i);
  assert.match(newest, /cipher-fast/);
  assert.match(newest, /fox-19\.wav/);
  assert.match(newest, /live/i);
  assert.ok(await row(ids[21]!).getByRole('button', { name: `Cancel job ${ids[21]}` }).isVisible());
  assert.equal(await page.getByRole('button', { name: 'Newer' }).isDisabled(), true);

  await page.getByRole('button', { name: 'Older' }).click();
  await row(ids[0]!).waitFor();
  assert.deepEqual(await shownIds(), [ids[1], ids[0]]);
  // The long job runs: its progress shows, and moves without a reload (the page asks again every
  // few seconds while a job on it is queued or running).
  await until(`document.querySelector('tr[data-job-id="${ids[1]}"]')?.dataset.status === 'running'`, 60_000);
  await row(ids[1]!).locator('progress').waitFor();
  const progress = `Number(document.querySelector('tr[data-job-id="${ids[1]}"] progress')?.value ?? 0)`;
  const first = Number(await page.evaluate(progress));
  await until(`${progress} > ${first}`, 60_000);
  await page.screenshot({ path: path.join(SHOTS, 'jobs-running.png'), fullPage: true });
  const done = await row(ids[0]!).innerText();
  assert.match(done, /completed/i);
  assert.match(await row(ids[0]!).locator('[data-label="Credits"]').innerText(), /^\d+$/);
  assert.notEqual(await row(ids[0]!).locator('[data-label="Took"]').innerText(), '—');
  assert.match(await row(ids[0]!).locator('[data-label="Audio"]').innerText(), /^\d\.\d s$/, 'a few seconds of audio');
  assert.equal(await row(ids[0]!).getByRole('button').count(), 0, 'a finished job has no Cancel');
  await page.getByRole('button', { name: 'Newer' }).click();
  await row(ids[21]!).waitFor();
});

test('cancel from the page: a confirmation dialog (Escape keeps the job), then the job is canceled', async () => {
  const newest = row(ids[21]!);
  const button = newest.getByRole('button', { name: `Cancel job ${ids[21]}` });
  await button.click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this job?' });
  await dialog.waitFor();
  assert.equal(await page.evaluate('document.activeElement.textContent'), 'Keep it', 'the safe choice has the focus');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await status(ids[21]!), 'queued');
  await button.click();
  await dialog.getByRole('button', { name: 'Cancel job' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('status').getByText(`Job ${ids[21]} canceled`).waitFor();
  await until(`document.querySelector('tr[data-job-id="${ids[21]}"]')?.dataset.status === 'canceled'`);
  assert.equal(await newest.getByRole('button').count(), 0);
  assert.equal(await status(ids[21]!), 'canceled', 'canceled on the server');
});

test('the status filter shows one status from the first page on; phone-sized, the table fits the screen', async () => {
  await page.getByLabel('Status').selectOption('completed');
  await until(`document.querySelectorAll('tbody tr').length > 0 && [...document.querySelectorAll('tbody tr')].every((r) => r.dataset.status === 'completed')`);
  assert.ok((await shownIds()).includes(ids[0]!));
  await page.getByLabel('Status').selectOption('canceled');
  // (The completed list may also have one row: wait for the canceled one.)
  await until(`[...document.querySelectorAll('tbody tr')].map((r) => r.dataset.status).join() === 'canceled'`);
  assert.deepEqual(await shownIds(), [ids[21]]);
  await page.getByLabel('Status').selectOption('');
  await row(ids[21]!).waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'jobs.png'), fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
  assert.ok(overflow <= 0, `${overflow}px wider than the screen`);
  await page.screenshot({ path: path.join(SHOTS, 'jobs-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
  assert.deepEqual(pageErrors, []);
});
