/**
 * The floor and reports (issue 39) through the started product, in Chromium: a supervisor
 * (Away, so that only agent1 takes leads) watches the Floor; agent1 takes a lead; a second lead
 * waits (nobody free) and shows in the queue with its wait counting up; agent1 finishes and is
 * offered it; the figures move to offered 2, answered 2; the charts draw; the CSV export holds
 * both calls with the statuses agent1's History shows. Screenshots of the Floor and Reports at 360 and 1280 px.
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import {
  answerButton,
  logInToConsole,
  overflowingElements,
  recordResultAndFinish,
} from './support/console';
import { startProduct, type Product } from './support/product';

let product: Product;
let browser: Browser;
let http: APIRequestContext;

beforeAll(async () => {
  product = await startProduct();
  browser = await launchChromium(await toneWav(1000));
  http = await request.newContext();
});

afterAll(async () => {
  await http?.dispose();
  await browser?.close();
  await product?.stop();
});

async function consoleOf(email: string): Promise<Page> {
  const { context } = await loopbackOnlyContext(browser);
  const page = await context.newPage();
  await logInToConsole(page, product.url, email);
  return page;
}

async function postLead(fname: string, phone: string): Promise<void> {
  const posted = await http.post(`${product.url}/api/v1/leads`, {
    headers: { authorization: 'Bearer demo-api-key' },
    data: { fname, lname: 'Floor', phone_number: phone },
  });
  expect(posted.status()).toBe(201);
}

const visible = (page: Page, text: string | RegExp, timeout = 15_000) =>
  expect.poll(() => page.getByText(text).first().isVisible(), { timeout }).toBe(true);

it('a supervisor watches a lead taken, a lead queued and offered, the figures move, and exports both calls', async () => {
  const supervisor = await consoleOf('supervisor@example.com');
  await supervisor.getByRole('button', { name: 'Status: Available' }).click();
  await expect
    .poll(() => supervisor.getByRole('button', { name: 'Status: Away' }).isVisible(), {
      timeout: 10_000,
    })
    .toBe(true);
  await supervisor
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'Floor' })
    .click();
  const floor = supervisor.getByRole('region', { name: 'Floor' });
  const figure = (label: string) =>
    floor.locator('.floor-kpi', { hasText: label }).locator('dd').textContent();
  await expect.poll(() => figure('Offered'), { timeout: 15_000 }).toBe('0');

  const agent = await consoleOf('agent1@example.com');
  await postLead('First', '+15550100081');
  await visible(agent, 'Incoming Lead!');
  await answerButton(agent, 'Call').click();
  await visible(agent, /^Hang Up/);
  const alex = floor.getByRole('row', { name: /Alex Rivera/ });
  await expect.poll(() => alex.textContent(), { timeout: 15_000 }).toContain('On call');

  // Nobody free: the second lead waits in the queue, its wait counting up.
  await postLead('Second', '+15550100082');
  const queue = floor.locator('section', {
    has: supervisor.getByRole('heading', { name: /^Queue/ }),
  });
  const waiting = queue.getByRole('row', { name: /Second Floor/ });
  await expect.poll(() => waiting.isVisible(), { timeout: 15_000 }).toBe(true);
  const waited = async () => {
    const text = (await waiting.textContent()) ?? '';
    const [mm, ss] = (/(\d\d):(\d\d)/.exec(text) ?? []).slice(1).map(Number);
    return (mm ?? 0) * 60 + (ss ?? 0);
  };
  const first = await waited();
  await expect.poll(waited, { timeout: 10_000 }).toBeGreaterThan(first);
  for (const width of [360, 1280]) {
    await supervisor.setViewportSize({ width, height: 900 });
    await supervisor.screenshot({
      path: join(product.dataDir, `floor-${width}.png`),
      fullPage: true,
    });
    expect(await overflowingElements(supervisor)).toEqual([]);
  }

  // agent1 finishes and is offered the waiting lead, and takes it.
  await agent
    .getByRole('region', { name: 'On call' })
    .getByRole('button', { name: /^Hang Up/ })
    .click();
  await recordResultAndFinish(agent, 'Contacted', 'Tags & Stages');
  await visible(agent, 'Incoming Lead!');
  await answerButton(agent, 'Call').click();
  await visible(agent, /^Hang Up/);
  await expect.poll(() => waiting.count(), { timeout: 15_000 }).toBe(0);
  await expect.poll(() => figure('Offered'), { timeout: 15_000 }).toBe('2');
  await expect.poll(() => figure('Answered'), { timeout: 15_000 }).toBe('2');
  // The charts draw (uPlot's canvases; axes labelled on them), titled, with their legends.
  for (const chart of ['calls', 'service-level']) {
    await expect
      .poll(() => floor.locator(`[data-chart="${chart}"] canvas`).count(), { timeout: 10_000 })
      .toBe(1);
  }
  const calls = (await floor.locator('[data-chart="calls"]').textContent()) ?? '';
  for (const text of ['Calls by 15 minutes', 'Offered', 'Answered', 'Missed']) {
    expect(calls).toContain(text);
  }
  expect(await floor.locator('[data-chart="service-level"]').textContent()).toContain(
    'Service level through the day',
  );
  await agent
    .getByRole('region', { name: 'On call' })
    .getByRole('button', { name: /^Hang Up/ })
    .click();
  await recordResultAndFinish(agent, 'Contacted', 'Tags & Stages');

  // Reports, and the export: both calls, with the statuses agent1's History shows.
  await floor.getByRole('button', { name: 'Reports' }).click();
  await expect
    .poll(() => floor.getByRole('region', { name: 'By day' }).isVisible(), { timeout: 15_000 })
    .toBe(true);
  for (const width of [360, 1280]) {
    await supervisor.setViewportSize({ width, height: 900 });
    await supervisor.screenshot({
      path: join(product.dataDir, `reports-${width}.png`),
      fullPage: true,
    });
    expect(await overflowingElements(supervisor)).toEqual([]);
  }
  const href = await floor.getByRole('link', { name: 'Download calls (CSV)' }).getAttribute('href');
  const csv = await supervisor.evaluate(async (url) => (await fetch(url!)).text(), href);
  const records: unknown = parse(csv);
  const [header, ...rows] = records as string[][];
  const lead = header!.indexOf('lead');
  const status = header!.indexOf('status');
  const exported = rows.filter((row) => / Floor$/.test(row[lead] ?? ''));
  const history = await agent.evaluate(async () => {
    const page = (await (await fetch('/api/v1/mycalls?limit=50&page=1')).json()) as {
      data: Array<{ lead: { label: string } | null; status_display: string }>;
    };
    return page.data.map((row) => [row.lead?.label ?? '', row.status_display]);
  });
  expect(exported.map((row) => [row[lead], row[status]]).sort()).toEqual(
    history.filter(([label]) => / Floor$/.test(label ?? '')).sort(),
  );
  expect(exported).toHaveLength(2);
});
