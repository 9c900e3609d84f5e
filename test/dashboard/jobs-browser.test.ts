// The dashboard's Jobs page in real headless Chromium (Debian's chromium driven by playwright-core)
// against a real Parla server with its job runner (one job at a time) on a loopback port: the
// account's jobs newest first, 20 to a page, a running job's progress moving on its own, the
// status filter, canceling from the page, a job opened to read its transcript, timings and webhook
// attempts, and the table fitting every desktop width. Screenshots go to test-output/screenshots/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { flite, librivox, soxConcat } from '../helpers/speech.js';
import { PROJECT_ROOT } from '../../src/config.js';
import { startJobWork, type JobWork } from '../../src/background-jobs.js';
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
/** The first job's webhook receiver: every delivery is kept, and answered 200. */
let receiver: Server;
const deliveries: string[] = [];
const pageErrors: string[] = [];
/** Oldest first: a completed job, a long one (running while the test looks), then 20 queued. */
const ids: string[] = [];

async function upload(file: string, name: string, fields: Record<string, string> = {}): Promise<string> {
  const { body, contentType } = await multipart(readFileSync(file), { model: 'cipher-fast', ...fields }, name);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/stt/jobs',
    headers: { 'x-api-key': apiKey, 'content-type': contentType },
    payload: body,
  });
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
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => (deliveries.push(body), res.end('ok')));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // A short lease: the runner reports progress with every heartbeat, a quarter of it. The
  // receiver is on loopback, which the fetcher refuses unless told.
  t = await createTestApp({ PARLA_JOB_CONCURRENCY: '1', PARLA_JOB_LEASE_SECONDS: '4', PARLA_FETCH_ALLOW_PRIVATE: 'true' });
  work = startJobWork(t.services, { pollMs: 200 });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ email, apiKey, accountId } = await accountWithPassword(t, { credits: 1_000_000 }));

  const fox = flite('The quick brown fox jumps over the lazy dog.');
  ids.push(await upload(fox, 'fox.wav', { callback_url: hook, response_format: 'verbose_json' }));
  for (let i = 0; i < 600 && (await status(ids[0]!)) !== 'completed'; i++) await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < 300 && deliveries.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
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
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
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
  receiver?.close();
});

test("the Jobs page lists the account's jobs newest first, 20 to a page; Older and Newer page through them; a running job's progress moves on its own", async () => {
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
  assert.ok(
    await row(ids[21]!)
      .getByRole('button', { name: `Cancel job ${ids[21]}` })
      .isVisible(),
  );
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
  assert.equal(
    await row(ids[0]!)
      .getByRole('button', { name: /^Cancel job/ })
      .count(),
    0,
    'a finished job has no Cancel',
  );
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
  assert.equal(await newest.getByRole('button', { name: /^Cancel job/ }).count(), 0);
  assert.equal(await status(ids[21]!), 'canceled', 'canceled on the server');
});

test('the status filter shows one status from the first page on; phone-sized, the table fits the screen', async () => {
  await page.getByLabel('Status').selectOption('completed');
  await until(
    `document.querySelectorAll('tbody tr').length > 0 && [...document.querySelectorAll('tbody tr')].every((r) => r.dataset.status === 'completed')`,
  );
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

test("a job opens in its own view: its facts and timings, the transcript with segment times, the webhook's attempts; Escape closes it", async () => {
  await page.getByLabel('Status').selectOption('completed');
  await row(ids[0]!).waitFor();
  const open = page.getByRole('button', { name: `Open job ${ids[0]}` });
  await open.click();
  const dialog = page.getByRole('dialog', { name: `Job ${ids[0]}` });
  await dialog.getByRole('heading', { name: 'Transcript' }).waitFor();
  const fact = (k: string) => dialog.locator(`[data-fact="${k}"]`).innerText();
  assert.equal(await fact('Status'), 'completed');
  assert.equal(await fact('Model'), 'cipher-fast');
  assert.equal(await fact('Format'), 'verbose_json');
  assert.match(await fact('Source'), /^fox\.wav \([\d,.\s]+ bytes\)$/);
  assert.match(await fact('Credits'), /^\d+$/);
  assert.notEqual(await fact('Took'), '—');
  assert.notEqual(await fact('Finished'), '—');
  // The words the recognizer heard, as GET /api/v1/stt/jobs/{id}/result has them.
  const result = await t.app.inject({ method: 'GET', url: `/api/v1/stt/jobs/${ids[0]}/result`, headers: { 'x-api-key': apiKey } });
  const expected = result.json() as { text: string; segments: Array<{ start: number; end: number }> };
  assert.match(expected.text, /fox/i);
  assert.equal((await dialog.locator('.job-transcript').innerText()).trim(), expected.text.trim());
  const segmentRows = dialog.locator('.segments-table tbody tr');
  assert.equal(await segmentRows.count(), expected.segments.length);
  assert.equal(await segmentRows.first().locator('td').first().innerText(), `${expected.segments[0]!.start.toFixed(2)} s`);
  // The delivery the receiver got, with its answer.
  assert.equal(deliveries.length, 1);
  assert.match(await dialog.locator('.badge.webhook-delivered').innerText(), /delivered/i);
  const attempt = dialog.locator('.attempts-table tr[data-attempt="1"]');
  assert.match(await attempt.innerText(), /200/);
  await page.screenshot({ path: path.join(SHOTS, 'job-detail.png'), fullPage: true });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  // The focus goes back to the row's button (once the page has handled the close).
  await until(`document.activeElement?.getAttribute('aria-label') === 'Open job ${ids[0]}'`, 5_000);

  // A queued job opens too: no transcript yet, no webhook.
  await page.getByLabel('Status').selectOption('');
  await row(ids[20]!).waitFor();
  await page.getByRole('button', { name: `Open job ${ids[20]}` }).click();
  const queued = page.getByRole('dialog', { name: `Job ${ids[20]}` });
  await queued.getByText('No transcript yet').waitFor();
  assert.match(await queued.innerText(), /No webhook/);
  await queued.getByRole('button', { name: 'Close' }).click();
  await queued.waitFor({ state: 'hidden' });
  assert.deepEqual(pageErrors, []);
});

test('every desktop width shows the whole table, no column behind a horizontal scroll; narrower, one card per job', async () => {
  // The first page of all jobs is shown (the last test reset the filter): ids[20] is on it.
  await row(ids[20]!).waitFor();
  for (const width of [1920, 1440, 1280, 1100, 1001]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    const box = (await page.evaluate(
      "(() => { const s = document.querySelector('.table-scroll'); const t = s.querySelector('table'); return [t.scrollWidth, s.clientWidth, document.querySelector('thead').offsetParent !== null]; })()",
    )) as [number, number, boolean];
    assert.ok(box[2], `${width}px: the table has its header row`);
    assert.ok(box[0] <= box[1], `${width}px: ${box[0]}px of table in a ${box[1]}px box`);
    for (const col of ['Took', 'Credits'])
      assert.ok(await row(ids[20]!).locator(`[data-label="${col}"]`).isVisible(), `${width}px: ${col} shows`);
    if (width === 1440) await page.screenshot({ path: path.join(SHOTS, 'jobs-1440.png'), fullPage: true });
  }
  for (const width of [1000, 760]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate("document.querySelector('thead').offsetParent === null"), true, `${width}px: cards, no header row`);
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
    assert.ok(overflow <= 0, `${width}px: ${overflow}px wider than the window`);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
});
