/**
 * Incoming lead (`npm run bench -- incoming-lead`, alone `npx tsx bench/console/incoming-lead.ts`):
 * a lead is posted → the agent's console shows 'Incoming Lead!', next to the floor of the same
 * thing, a bare WebSocket push from a plain Node server to a plain page, measured in the same
 * run, lead by lead. Target (issue 38, item 4): at most 3× the bare push.
 *
 * Three set-ups of the built product (lib/built-product.ts), as `npm start` runs it:
 *
 * - `pglite-1`: one instance on PGlite (a fresh data folder);
 * - `postgres-1`: one instance on a fresh PostgreSQL database (lib/scratch-postgres.ts);
 * - `postgres-3`: three instances on one fresh PostgreSQL database with the same secrets: the
 *   first leads the media, the other two follow (apps/server/src/cluster/start-instance.ts); the
 *   console is logged in through a follower (the second instance), so its page, its POSTs and
 *   its sockets go through the follower, which relays the call routes and the signalling to the
 *   leader.
 *
 * In each: agent1 logged in to the console in Chromium, softphone registered (the gateway's
 * `ready`), status Available. Reference: a plain Node HTTP + `ws` server
 * (console/bare-lead-server.ts) and its page (plain DOM, no React). Both pages carry the same
 * init script (console/page-timer.ts). Each lead is posted by the page itself
 * (`fetch('/api/v1/leads')`, same origin, `Authorization: Bearer demo-api-key`), so both ends are
 * read on one clock, the page's `performance.now()`: from just before `fetch` to the
 * MutationObserver seeing 'Incoming Lead!' in the DOM. The page's fetch carries the session
 * cookie as well; the intake route authenticates by the API key. Ours is then ignored (Ignore:
 * the server records the reject and, with nobody else to ring, ends the lead missed) and the
 * console waits again; the reference page is reset.
 *
 * Rounds (default 3) go through every set-up, the order turning by one each round; each set-up
 * in each round starts its servers afresh and interleaves its leads with the reference's, lead
 * by lead. Per lead it also keeps the phases in the page (POST answered, each WebSocket frame
 * received, each request made) to say where the time goes. Environment: `BENCH_SETUPS`
 * (comma-separated, default all three), `BENCH_ROUNDS` (3), `BENCH_LEADS` (20 per set-up and
 * round), `BENCH_WARMUP` (3), `BENCH_POSTGRES_URL`, `BENCH_REFUSE_BUSY=1` (exit instead of
 * marking a run started on a busy machine), `BENCH_WRITE=0` (print instead of writing the doc
 * and the results), `SERVER_DIST` and `WEB_DIST_DIR` (a private build).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, toneWav } from '../../e2e/support/browser';
import { DEMO_PASSWORD } from '../../e2e/support/console';
import {
  builtServerMain,
  killOnExit,
  privateBuildPrefix,
  startBuiltProduct,
  type BuiltProduct,
} from '../lib/built-product';
import { loadNow, refuseIfBusy } from '../lib/machine-load';
import { ready, stopChild } from '../lib/processes';
import { machine, recordRow } from '../lib/results';
import { publishSection, renderSection } from '../lib/sections';
import {
  CLUSTER_SECRETS,
  createScratchPostgres,
  postgresAnswers,
  type ScratchPostgres,
} from '../lib/scratch-postgres';
import { sourceState } from '../lib/source-state';
import { quantile, round } from '../lib/stats';
import {
  idPath,
  incomingLeadFigures,
  type IncomingLeadSectionData,
  type IncomingLeadSetup as Setup,
  type LeadPhases,
  type RoundPhases as SectionRound,
} from './incoming-lead-section';
import { installPageTimer, type Frame, type Mark, type PageTimer, type Seen } from './page-timer';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LEADS = Number(process.env.BENCH_LEADS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const TARGET = 3;
const AGENT = 'agent1@example.com';
const COMMAND = 'npm run bench -- incoming-lead';
const benchDir = fileURLToPath(new URL('..', import.meta.url));

const SETUPS: readonly Setup[] = [
  {
    id: 'pglite-1',
    title: 'PGlite, 1 instance',
    database: 'pglite',
    instances: 1,
    row: 'incoming-lead',
  },
  {
    id: 'postgres-1',
    title: 'PostgreSQL, 1 instance',
    database: 'postgres',
    instances: 1,
    row: 'incoming-lead-postgres-1',
  },
  {
    id: 'postgres-3',
    title: 'PostgreSQL, 3 instances (console through a follower)',
    database: 'postgres',
    instances: 3,
    row: 'incoming-lead-postgres-3',
  },
];

type Side = 'ours' | 'reference';

/** One lead as the page saw it (page `performance.now()` ms). */
interface LeadTiming {
  t0: number;
  answeredAt: number;
  status: number;
  seen: Seen;
  /** Ours: the same call-user GET again, 100 ms after the text appeared, ms. */
  callUserAgainMs?: number;
  frames: Frame[];
  marks: Mark[];
  requests: Array<{ name: string; start: number; end: number }>;
}

/** Phases of one lead, ms after the POST was sent, with the frames the page received. */
interface Phases extends LeadPhases {
  /** Frames received between the POST and the text: socket path, ms, first characters. */
  frames: Array<{ path: string; at: number; head: string }>;
}

// ---------------------------------------------------------------- set-up and clean-up

/** What is running now (stopped on a signal). */
const running: { products: BuiltProduct[]; postgres?: ScratchPostgres | undefined } = {
  products: [],
};
let bare: ChildProcess | undefined;
let browser: Browser | undefined;
let micWav: string | undefined;

async function stopProducts(): Promise<void> {
  // Followers first: the leader's stop would otherwise hand its lease to one of them.
  for (const product of running.products.splice(0).reverse()) await product.stop();
  const postgres = running.postgres;
  running.postgres = undefined;
  await postgres?.drop();
}

async function cleanUp(): Promise<void> {
  await browser?.close().catch(() => undefined);
  if (bare) await stopChild(bare, 5_000);
  await stopProducts();
  if (micWav) rmSync(dirname(micWav), { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(1));
  });
}

/** What `/healthz` says of the media lease. */
async function roleOf(url: string): Promise<string | undefined> {
  const health = (await (await fetch(`${url}/healthz`)).json()) as { media?: { role?: string } };
  return health.media?.role;
}

/**
 * Starts the instances of `setup` (the leader first, each once it answers); resolves with the
 * URL the console uses: the one instance, or a follower.
 */
async function startSetup(setup: Setup): Promise<string> {
  if (setup.database === 'postgres') {
    running.postgres = await createScratchPostgres('incoming');
  }
  const env = running.postgres
    ? { DATABASE_URL: running.postgres.url, ...CLUSTER_SECRETS }
    : ({} as Record<string, string>);
  for (let i = 0; i < setup.instances; i++) {
    const product = await startBuiltProduct(env);
    running.products.push(product);
    const role = await roleOf(product.url);
    const expected = i === 0 ? 'leader' : 'follower';
    if (setup.database === 'postgres' && role !== expected) {
      throw new Error(`instance ${i + 1} of ${setup.title} answers ${role}, not ${expected}`);
    }
  }
  return (running.products[1] ?? running.products[0]!).url;
}

/** The page posts one lead and waits for 'Incoming Lead!' in its own DOM. */
function postAndWait(page: Page, phone: string): Promise<LeadTiming> {
  const body = JSON.stringify({ fname: 'Jordan', lname: 'Miles', phone_number: phone });
  return page.evaluate(async (json) => {
    const timer = (window as unknown as { __benchTimer: PageTimer }).__benchTimer;
    performance.clearResourceTimings();
    timer.arm({ text: 'Incoming Lead!' });
    const t0 = performance.now();
    const response = await fetch('/api/v1/leads', {
      method: 'POST',
      headers: { authorization: 'Bearer demo-api-key', 'content-type': 'application/json' },
      body: json,
    });
    const answeredAt = performance.now();
    const seen = await timer.seen(15_000);
    await response.text();
    // Ours: the call user the console loaded, fetched again 100 ms later (the server done with
    // the intake), for its own cost.
    const callUser = performance
      .getEntriesByType('resource')
      .find((e) => e.startTime >= t0 && /\/api\/v1\/callusers\/\d+$/.test(e.name));
    let callUserAgainMs: number | undefined;
    if (callUser) {
      await new Promise((r) => setTimeout(r, 100));
      const start = performance.now();
      await (await fetch(callUser.name)).text();
      callUserAgainMs = performance.now() - start;
    }
    return {
      t0,
      answeredAt,
      status: response.status,
      seen,
      callUserAgainMs,
      frames: timer.frames.filter((f) => f.at >= t0),
      marks: timer.marks.filter((m) => m.at >= t0),
      requests: performance
        .getEntriesByType('resource')
        .filter((e) => e.startTime >= t0)
        .map((e) => ({
          name: e.name,
          start: e.startTime,
          end: (e as PerformanceResourceTiming).responseEnd,
        })),
    };
  }, body);
}

function phasesOf(t: LeadTiming): Phases {
  const after = (at: number | undefined) => (at === undefined ? undefined : round(at - t.t0, 1));
  const signalling = t.frames.find((f) => f.head.includes('"invite"'));
  const realtime = t.frames.find((f) => f.url.includes('/app/'));
  return {
    total: round(t.seen.at - t.t0, 1),
    answered: round(t.answeredAt - t.t0, 1),
    ...(signalling ? { frame: after(signalling.at)! } : {}),
    ...(realtime ? { realtime: after(realtime.at)! } : {}),
    ...(t.seen.frameAt === undefined ? {} : { nextFrame: after(t.seen.frameAt)! }),
    ...(t.callUserAgainMs === undefined ? {} : { callUserAgain: round(t.callUserAgainMs, 1) }),
    marks: t.marks
      .filter((m) => m.at <= t.seen.at)
      .filter((m) => !m.what.includes('/api/v1/leads'))
      .map((m) => ({ what: idPath(m.what), at: round(m.at - t.t0, 1) })),
    frames: t.frames
      .filter((f) => f.at <= t.seen.at)
      .map((f) => ({
        path: new URL(f.url).pathname,
        at: round(f.at - t.t0, 1),
        head: f.head.slice(0, 60),
      })),
    requests: t.requests.map((r) => ({
      path: new URL(r.name).pathname,
      start: round(r.start - t.t0, 1),
      end: round(r.end - t.t0, 1),
    })),
  };
}

async function logIn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email').fill(AGENT);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.getByText('Waiting for lead...').waitFor({ timeout: 60_000 });
  try {
    await page.getByRole('button', { name: 'Status: Available' }).waitFor({ timeout: 30_000 });
  } catch (error) {
    // Say what the console showed instead, for the run's log.
    const status = await page
      .getByRole('button', { name: /^Status:/ })
      .first()
      .getAttribute('aria-label', { timeout: 1_000 })
      .catch(() => null);
    const text = (await page.textContent('body').catch(() => null))?.slice(0, 300);
    throw new Error(
      `not Available 30 s after login (status ${status ?? 'not shown'}; page: ${text})`,
      {
        cause: error,
      },
    );
  }
  await page.waitForFunction(
    () =>
      (window as unknown as { __benchTimer: PageTimer }).__benchTimer.frames.some((f) =>
        f.head.includes('"type":"ready"'),
      ),
    undefined,
    { timeout: 30_000 },
  );
}

/** Ignores the ringing lead and waits until the console waits again, Available. */
async function ignoreLead(page: Page): Promise<void> {
  // 409 as well: the softphone's own reject may reach the server first (the call is then no
  // longer ringing when the console's POST arrives).
  const [response] = await Promise.all([
    page.waitForResponse(
      (r) => r.request().method() === 'POST' && /\/apps\/webrtc\/\d+\/reject$/.test(r.url()),
      { timeout: 15_000 },
    ),
    page.getByRole('button', { name: /^Ignore/ }).click(),
  ]);
  if (response.status() >= 500) throw new Error(`Ignore answered ${response.status()}`);
  await page.getByText('Waiting for lead...').waitFor({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Status: Available' }).waitFor({ timeout: 15_000 });
  // Let the server finish with the missed lead (its realtime events) before the next one.
  await page.waitForTimeout(300);
}

async function resetReference(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { __reset(): void }).__reset());
  await page.waitForTimeout(300);
}

// ---------------------------------------------------------------- the run

const unknownSetups = (process.env.BENCH_SETUPS ?? '')
  .split(',')
  .map((id) => id.trim())
  .filter((id) => id && !SETUPS.some((s) => s.id === id));
if (unknownSetups.length > 0) {
  console.error(
    `Unknown set-up ${unknownSetups.join(', ')}; one of ${SETUPS.map((s) => s.id).join(', ')}`,
  );
  process.exit(2);
}
const chosen =
  process.env.BENCH_SETUPS?.split(',').map((id) => id.trim()) ?? SETUPS.map((s) => s.id);
let setups = SETUPS.filter((s) => chosen.includes(s.id));
if (setups.some((s) => s.database === 'postgres') && !(await postgresAnswers())) {
  console.error('PostgreSQL does not answer at BENCH_POSTGRES_URL: measuring PGlite only.');
  setups = setups.filter((s) => s.database === 'pglite');
}

/** When the server and the console measured were built (they run from the build, not the source). */
function buildSentence(): string {
  const at = (file: string) => {
    try {
      return `${statSync(file).mtime.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    } catch {
      return 'missing';
    }
  };
  const web = join(
    process.env.WEB_DIST_DIR ?? fileURLToPath(new URL('../../apps/web/dist', import.meta.url)),
    'index.html',
  );
  return `Built: the server ${at(builtServerMain())}, the console ${at(web)}.`;
}

/** The measured leads of one set-up in one round. */
type RoundPhases = SectionRound<Phases>;

const started = Date.now();
const loadAtStart = refuseIfBusy('incoming-lead').values;
/** The sources at the run (the built product should be built from them). */
const source = sourceState();
const measured: RoundPhases[] = [];
let chromiumVersion = '';
let leadNumber = 1000;
let reference: Page | undefined;

/** One set-up's round: its servers started, the console logged in, its leads and the reference's. */
async function measureRound(setup: Setup, r: number, load: number): Promise<RoundPhases> {
  const consoleUrl = await startSetup(setup);
  let context: BrowserContext | undefined;
  try {
    context = await browser!.newContext();
    const ours = await context.newPage();
    await installPageTimer(ours);
    await logIn(ours, consoleUrl);
    const phases: Record<Side, Phases[]> = { ours: [], reference: [] };
    const one = async (side: Side, keep: boolean): Promise<void> => {
      const page = side === 'ours' ? ours : reference!;
      const timing = await postAndWait(page, `+1555010${++leadNumber}`);
      if (timing.status !== 201) {
        throw new Error(`${side}: POST /api/v1/leads → ${timing.status}`);
      }
      if (keep) phases[side].push(phasesOf(timing));
      if (side === 'ours') await ignoreLead(page);
      else await resetReference(page);
    };
    for (let i = 0; i < WARMUP; i++) {
      await one('ours', false);
      await one('reference', false);
    }
    for (let i = 0; i < LEADS; i++) {
      // Alternate which side goes first, so drifts in the machine's load hit both alike.
      const sides: Side[] = i % 2 === 0 ? ['ours', 'reference'] : ['reference', 'ours'];
      for (const side of sides) await one(side, true);
    }
    const p50 = (list: Phases[]) =>
      round(
        quantile(
          list.map((p) => p.total),
          0.5,
        ),
        1,
      );
    console.log(`  ours p50 ${p50(phases.ours)} ms, reference p50 ${p50(phases.reference)} ms`);
    return { setup: setup.id, round: r, load, ...phases };
  } finally {
    await context?.close().catch(() => undefined);
    await stopProducts();
  }
}
try {
  bare = spawn(process.execPath, ['--import', 'tsx', 'console/bare-lead-server.ts'], {
    cwd: benchDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(bare);
  const { port } = await ready<{ port: number }>(bare, 'the bare lead server');
  const bareUrl = `http://127.0.0.1:${port}/`;
  micWav = await toneWav(1000, 5);
  const wavDir = dirname(micWav);
  process.once('exit', () => rmSync(wavDir, { recursive: true, force: true }));
  browser = await launchChromium(micWav);
  chromiumVersion = browser.version();
  reference = await (await browser.newContext()).newPage();
  await installPageTimer(reference);
  await reference.goto(bareUrl);
  await reference.waitForFunction(
    () => (window as unknown as { __connected: boolean }).__connected,
  );

  for (let r = 1; r <= ROUNDS; r++) {
    const order = setups.map((_, i) => setups[(i + r - 1) % setups.length]!);
    for (const setup of order) {
      console.log(`round ${r}/${ROUNDS}: ${setup.title}…`);
      const load = loadNow().values[0]!;
      let failures = 0;
      for (;;) {
        try {
          measured.push(await measureRound(setup, r, load));
          break;
        } catch (error) {
          // A login timing out on a loaded machine: once more from the start.
          if (++failures > 1) throw error;
          console.error(`${setup.title}, round ${r} failed, trying it once more:`, error);
        }
      }
    }
  }
} catch (error) {
  console.error(error);
  for (const product of running.products) {
    console.error(`product output (${product.url}):\n${product.output().slice(-4000)}`);
  }
  await cleanUp();
  process.exit(1);
}
await cleanUp();
const loadAtEnd = loadNow().values;

// ---------------------------------------------------------------- report

const figures = setups.map((setup) => incomingLeadFigures(setup, measured, TARGET));
const data: IncomingLeadSectionData = {
  date: new Date().toISOString(),
  machine: machine(),
  chromiumVersion,
  command: `${COMMAND}${setups.length < SETUPS.length ? ` (BENCH_SETUPS=${setups.map((s) => s.id).join(',')})` : ''}`,
  build: privateBuildPrefix(),
  seconds: Math.round((Date.now() - started) / 1000),
  loadAtStart,
  loadAtEnd,
  source,
  buildSentence: buildSentence(),
  leads: LEADS,
  warmup: WARMUP,
  target: TARGET,
  setups,
  // The frames each lead received are kept in latest.json's rows; the section does not show them.
  measured: measured.map((r) => ({
    ...r,
    ours: r.ours.map(({ frames: _frames, ...phases }) => phases),
    reference: r.reference.map(({ frames: _frames, ...phases }) => phases),
  })),
};
let markdown: string;
if (process.env.BENCH_WRITE !== '0') {
  markdown = publishSection('incoming-lead', data);
  for (const f of figures) {
    recordRow({
      name: f.setup.row,
      title: `incoming lead, ${f.setup.title}`,
      statistic: `p50, median of ${f.rounds.length} rounds × ${LEADS} leads`,
      ours: {
        label: "console: POST /api/v1/leads → 'Incoming Lead!'",
        value: round(f.oursMedianP50, 1),
        unit: 'ms',
      },
      reference: {
        label: 'bare ws push to a plain page',
        value: round(f.referenceMedianP50, 1),
        unit: 'ms',
      },
      ratio: round(f.ratio, 2),
      target: `≤ ${TARGET}×`,
      met: f.met,
      ...(f.missedBy ? { missedBy: f.missedBy } : {}),
      command: COMMAND,
      details: {
        setup: f.setup.id,
        source,
        chromium: chromiumVersion,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
        ratios: f.ratios.map((r) => round(r, 2)),
        p50PerRound: { ours: f.oursP50, reference: f.referenceP50 },
        requests: f.requests,
        leads: f.rounds.map((r) => ({
          round: r.round,
          load: r.load,
          ours: r.ours,
          reference: r.reference,
        })),
      },
    });
  }
} else {
  markdown = renderSection('incoming-lead', data);
}
console.log(markdown);
console.log(`\nincoming-lead: done in ${Math.round((Date.now() - started) / 1000)} s`);
