/**
 * The floor and reports (issue 39) through the started product, in Chromium: a supervisor
 * (Away, so that only agent1 takes leads) watches the Floor; agent1 takes a lead; a second lead
 * waits (nobody free) and shows in the queue with its wait counting up; agent1 finishes and is
 * offered it; the figures move to offered 2, answered 2; the charts draw (the Live tab's today by
 * 15 minutes, the Reports tab's range by day); the CSV export holds both calls with the statuses
 * agent1's History shows. The Live and Reports tabs at 360 and 1280 px: screenshots, nothing
 * sticking out, and axe-core (colour contrast included) in the browser without a serious or
 * critical violation.
 */
import { parse } from 'csv-parse/sync';
import {
  request,
  type APIRequestContext,
  type Browser,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import { answerButton, logInToConsole, recordResultAndFinish } from './support/console';
import { startProduct, type Product } from './support/product';
import { checkViewAtBothWidths } from './support/view-audit';

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

/** The series' colours (apps/web/src/floor/time-charts.tsx, CHART_COLOURS). */
const ANSWERED = '#13773a';
const MISSED = '#b42318';
const SERVICE_LEVEL = '#6d3fb0';

/**
 * How many of a chart's canvas pixels are drawn (opaque) in each of `colours` (`#rrggbb`, give or
 * take a little): its lines drawn, not only its axes.
 */
function inkOf(chart: Locator, colours: string[]): Promise<number[]> {
  return chart.locator('canvas').evaluate((canvas: HTMLCanvasElement, hexes: string[]) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    const wanted = hexes.map((hex) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)));
    const counts = wanted.map(() => 0);
    for (let p = 0; p < data.length; p += 4) {
      if (data[p + 3]! < 200) continue;
      wanted.forEach(([r, g, b], k) => {
        const off =
          Math.abs(data[p]! - r!) + Math.abs(data[p + 1]! - g!) + Math.abs(data[p + 2]! - b!);
        if (off < 40) counts[k]!++;
      });
    }
    return counts;
  }, colours);
}

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
  // The Live tab with a call on and a lead waiting: at both widths, axe-core in the browser.
  await checkViewAtBothWidths(supervisor, product.dataDir, 'floor');

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
  // Lines drawn on them (answered and missed today), and one image named for the table beside.
  await expect
    .poll(() => inkOf(floor.locator('[data-chart="calls"]'), [ANSWERED, MISSED]), {
      timeout: 10_000,
    })
    .toSatisfy((counts: number[]) => counts.every((count) => count > 20));
  expect(await floor.getByRole('img', { name: /today’s calls by 15 minutes/ }).isVisible()).toBe(
    true,
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
  // The range by day charted above the By day table: both charts drawn, with their lines.
  const byDay = floor.getByRole('region', { name: 'By day' });
  const dayChart = (name: string) => byDay.locator(`[data-chart="${name}"]`);
  for (const chart of ['calls-by-day', 'rates-by-day']) {
    await expect.poll(() => dayChart(chart).locator('canvas').count(), { timeout: 10_000 }).toBe(1);
  }
  expect(
    await byDay.getByRole('img', { name: /calls by day .* the table By day has/ }).isVisible(),
  ).toBe(true);
  const callsByDay = (await dayChart('calls-by-day').textContent()) ?? '';
  for (const text of ['Calls by day', 'Offered', 'Answered', 'Missed']) {
    expect(callsByDay).toContain(text);
  }
  expect(await dayChart('rates-by-day').textContent()).toContain(
    'Answer rate and service level by day',
  );
  // Today answered (green) and none missed (red along the floor); the rates' points of today.
  await expect
    .poll(() => inkOf(dayChart('calls-by-day'), [ANSWERED, MISSED]), { timeout: 10_000 })
    .toSatisfy((counts: number[]) => counts.every((count) => count > 20));
  await expect
    .poll(() => inkOf(dayChart('rates-by-day'), [ANSWERED, SERVICE_LEVEL]), { timeout: 10_000 })
    .toSatisfy((counts: number[]) => counts[0]! + counts[1]! > 10);
  await checkViewAtBothWidths(supervisor, product.dataDir, 'reports');
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
