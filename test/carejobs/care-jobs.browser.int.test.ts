/**
 * The care-job walk in a real browser (issue 39, item 1; Done means): headless Chromium with
 * JavaScript OFF. The agent creates a book_appointment job twice with one key and gets one job;
 * the user opens approvalUrl, signs in there with their own password through our OAuth server,
 * sees the sheet and the agent's note, and approves; a cost-bearing job is approved by placing its
 * hold on the payment page; the demo care-team account (DATA_DIR/demo-accounts.json) signs in to
 * the console, starts and completes both jobs, and the hold is captured.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { obtainTokens } from '../helpers/oauth-flow.ts';
import { chromiumAvailable, launchBrowser, withBrowserNote, type TestBrowser } from '../helpers/browser.ts';
import { BOOK, COSTLY, type Json } from './carejobs-fixture.ts';

const PATIENT = { email: 'care-patient@example.test', password: 'a long patient passphrase 42' };

describe.skipIf(!chromiumAvailable())(withBrowserNote('care-job approval and the care-team console in Chromium (no JavaScript)'), () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let token: string;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    t = await makeTestApp({ listen: true, seedDemoProviders: true });
    token = (await obtainTokens(t.baseUrl, PATIENT)).accessToken;
    browser = await launchBrowser({ javaScriptEnabled: false });
    page = await browser.context.newPage();
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text()); });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function api(method: 'GET' | 'POST', path: string, body?: Json, headers: Record<string, string> = {}): Promise<Json> {
    const r = await fetch(`${t.baseUrl}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await r.json() as Json;
    expect(r.status, JSON.stringify(json)).toBe(200);
    return json;
  }

  async function submit(button: string | RegExp): Promise<void> {
    await page.getByRole('button', { name: button }).click();
    await page.waitForLoadState('domcontentloaded');
  }

  async function signIn(email: string, password: string): Promise<void> {
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\//);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await submit('Sign in');
    if (await page.getByRole('button', { name: 'Allow' }).count()) await submit('Allow');
  }

  it('one key, one job; the user approves on the page; the care team completes; a cost-bearing job\'s hold is captured', async () => {
    // The agent retries its create with the same key: one job.
    const first = await api('POST', '/api/care-jobs', BOOK, { 'idempotency-key': 'browser-walk-1' });
    const retry = await api('POST', '/api/care-jobs', BOOK, { 'idempotency-key': 'browser-walk-1' });
    expect(retry.jobId).toBe(first.jobId);
    // The same operations as MCP tools: the same key replays the same job there too.
    const mcp = new Client({ name: 'care-jobs-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const viaMcp = await mcp.callTool({ name: 'create_care_job', arguments: { ...BOOK, idempotencyKey: 'browser-walk-1' } });
      expect((viaMcp.structuredContent as Json).jobId).toBe(first.jobId);
      const got = await mcp.callTool({ name: 'get_care_job', arguments: { jobId: first.jobId as string } });
      expect(got.structuredContent).toMatchObject({ jobId: first.jobId, status: 'pending_approval' });
      const refused = await mcp.callTool({ name: 'create_care_job', arguments: { jobType: 'refill', params: {} } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('JOB_TYPE_NOT_AVAILABLE');
    } finally {
      await mcp.close();
    }

    // The user opens the link and signs in with their own password (prompt=login).
    await page.goto(first.approvalUrl as string);
    await signIn(PATIENT.email, PATIENT.password);
    expect(new URL(page.url()).pathname).toBe(new URL(first.approvalUrl as string).pathname);
    await expect(page.locator('h1').textContent()).resolves.toContain('Book an appointment with Poppyfield Family Medicine');
    await expect(page.locator('#agent-note').textContent()).resolves.toContain(BOOK.context as string);
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'cb_approval')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/care-jobs' });
    await submit('Approve');
    await expect(page.locator('#status').textContent()).resolves.toContain('Approved');
    expect((await api('GET', `/api/care-jobs/${first.jobId as string}`)).status).toBe('approved');

    // A cost-bearing job: Approve opens the payment page; the hold approves the job.
    const paid = await api('POST', '/api/care-jobs', COSTLY);
    await page.goto(paid.approvalUrl as string);
    if (new URL(page.url()).pathname.startsWith('/oauth/')) await signIn(PATIENT.email, PATIENT.password);
    await expect(page.locator('#cost').textContent()).resolves.toContain('$25.00');
    await submit(/Approve and place the hold/);
    expect(new URL(page.url()).pathname).toMatch(/^\/pay\/ps_/);
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry date').fill('12/34');
    await page.getByLabel('Security code').fill('123');
    await page.getByLabel('Billing postal code').fill('94107');
    await submit(/Approve hold/);
    expect(await api('GET', `/api/care-jobs/${paid.jobId as string}`)).toMatchObject({ status: 'approved', payment: { holdStatus: 'authorized' } });

    // The demo care-team account signs in to the console (a fresh browser session) and carries both out.
    await browser.context.clearCookies();
    const demo = (JSON.parse(readFileSync(join(t.config.dataDir, 'demo-accounts.json'), 'utf8')) as { role: string; email: string; password: string }[])
      .find((a) => a.role === 'care_team')!;
    await page.goto(`${t.baseUrl}/console/care-team`);
    await signIn(demo.email, demo.password);
    expect(new URL(page.url()).pathname).toBe('/console/care-team');
    for (const job of [first, paid]) {
      await page.locator(`a[href="/console/care-team/jobs/${job.jobId as string}"]`).click();
      await expect(page.locator('#status').textContent()).resolves.toBe('approved');
      await submit('Start this job');
      await expect(page.locator('#status').textContent()).resolves.toBe('in_progress');
      await submit('Mark completed');
      await expect(page.locator('.error-summary').textContent()).resolves.toContain('outcome');
      await page.getByLabel('What was done').fill('Booked for Tuesday at 9:00 with Dr. Reyes');
      await page.getByLabel('Appointment time (optional)').fill('Tuesday 9:00');
      await submit('Mark completed');
      await expect(page.locator('#status').textContent()).resolves.toBe('completed');
      await page.getByRole('link', { name: 'Back to the care jobs' }).click();
    }
    expect(await api('GET', `/api/care-jobs/${first.jobId as string}`)).toMatchObject({ status: 'completed', outcome: { summary: 'Booked for Tuesday at 9:00 with Dr. Reyes', appointmentLabel: 'Tuesday 9:00' } });
    expect(await api('GET', `/api/care-jobs/${paid.jobId as string}`)).toMatchObject({ status: 'completed', payment: { holdStatus: 'captured' } });
    expect(cspErrors).toEqual([]);
  });
});
