/**
 * Incoming lead (`npx tsx bench/console/incoming-lead.ts`, `npm run bench -- incoming-lead`): a
 * lead is posted → the agent's console shows 'Incoming Lead!', next to the floor of the same
 * thing, a bare WebSocket push from a plain Node server to a plain page, measured in the same
 * run, lead by lead.
 *
 * Ours: the built product (console/built-product.ts), agent1 logged in to the console in
 * Chromium, softphone registered (the gateway's `ready`), status Available. Reference: a plain
 * Node HTTP + `ws` server (console/bare-lead-server.ts) and its page (plain DOM, no React).
 * Both pages carry the same init script (console/page-timer.ts). Each lead is posted by the
 * page itself (`fetch('/api/v1/leads')`, same origin, `Authorization: Bearer demo-api-key`), so
 * both ends are read on one clock, the page's `performance.now()`: from just before `fetch` to
 * the MutationObserver seeing 'Incoming Lead!' in the DOM. The page's fetch carries the
 * session cookie as well; the intake route authenticates by the API key. Ours is then ignored
 * (Ignore: the server records the reject and, with nobody else to ring, ends the lead missed)
 * and the console waits again; the reference page is reset.
 *
 * Per lead it also keeps the phases in the page (POST answered, each WebSocket frame received,
 * each request made) to say where the time goes. Environment: `BENCH_LEADS` (20),
 * `BENCH_WARMUP` (3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, toneWav } from '../../e2e/support/browser';
import { DEMO_PASSWORD } from '../../e2e/support/console';
import { ready, stopChild } from '../lib/processes';
import { writeSection } from '../lib/report';
import { formatRatio, recordRow } from '../lib/results';
import { quantile, round } from '../lib/stats';
import { runLine } from './run-line';
import { killOnExit, startBuiltProduct, type BuiltProduct } from '../lib/built-product';
import { installPageTimer, type Frame, type Mark, type PageTimer, type Seen } from './page-timer';

const LEADS = Number(process.env.BENCH_LEADS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const TARGET = 3;
const AGENT = 'agent1@example.com';
const benchDir = fileURLToPath(new URL('..', import.meta.url));

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

/** Phases of one lead, ms after the POST was sent. */
interface Phases {
  total: number;
  answered: number;
  frame?: number;
  realtime?: number;
  nextFrame?: number;
  callUserAgain?: number;
  /** Wrapped calls (media play(), WebRTC) between the POST and the text: what → ms. */
  marks: Array<{ what: string; at: number }>;
  /** Frames received between the POST and the text: socket path, ms, first characters. */
  frames: Array<{ path: string; at: number; head: string }>;
  /** Requests the page made between the POST and the text (path → ms after the POST, start). */
  requests: Array<{ path: string; start: number; end: number }>;
}

/** A request path with its ids as `{id}`. */
const idPath = (path: string) => path.replace(/\/\d+(?=\/|\s|$)/g, '/{id}');

// ---------------------------------------------------------------- set-up and clean-up

let product: BuiltProduct | undefined;
let bare: ChildProcess | undefined;
let browser: Browser | undefined;
let micWav: string | undefined;

async function cleanUp(): Promise<void> {
  await browser?.close().catch(() => undefined);
  if (bare) await stopChild(bare, 5_000);
  await product?.stop();
  if (micWav) rmSync(dirname(micWav), { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(1));
  });
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
  await page.getByRole('button', { name: 'Status: Available' }).waitFor({ timeout: 30_000 });
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

const started = Date.now();
const loadAtStart = loadavg();
try {
  product = await startBuiltProduct();
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
  const chromiumVersion = browser.version();

  const ours = await (await browser.newContext()).newPage();
  await installPageTimer(ours);
  await logIn(ours, product.url);
  const reference = await (await browser.newContext()).newPage();
  await installPageTimer(reference);
  await reference.goto(bareUrl);
  await reference.waitForFunction(
    () => (window as unknown as { __connected: boolean }).__connected,
  );

  const phases: Record<Side, Phases[]> = { ours: [], reference: [] };
  let leadNumber = 1000;
  const one = async (side: Side, measured: boolean): Promise<void> => {
    const page = side === 'ours' ? ours : reference;
    const timing = await postAndWait(page, `+1555010${++leadNumber}`);
    if (timing.status !== 201) throw new Error(`${side}: POST /api/v1/leads → ${timing.status}`);
    if (measured) phases[side].push(phasesOf(timing));
    if (side === 'ours') await ignoreLead(page);
    else await resetReference(page);
  };
  for (let i = 0; i < WARMUP; i++) {
    await one('ours', false);
    await one('reference', false);
  }
  for (let i = 0; i < LEADS; i++) {
    // Alternate which side goes first, so drifts in the machine's load hit both alike.
    const order: Side[] = i % 2 === 0 ? ['ours', 'reference'] : ['reference', 'ours'];
    for (const side of order) await one(side, true);
  }

  // ---------------------------------------------------------------- report
  const stat = (side: Side, pick: (p: Phases) => number | undefined, q: number) => {
    const values = phases[side].map(pick).filter((v): v is number => v !== undefined);
    return values.length ? round(quantile(values, q), 1) : undefined;
  };
  const totals = (side: Side) => phases[side].map((p) => p.total);
  const p50 = (side: Side) => round(quantile(totals(side), 0.5), 1);
  const ratio = p50('ours') / p50('reference');
  const met = ratio <= TARGET;
  const median = (side: Side, pick: (p: Phases) => number | undefined) => stat(side, pick, 0.5);
  // The requests ours made between the POST and the text, with their median start and end.
  const requestPaths = [
    ...new Set(phases.ours.flatMap((p) => p.requests.map((r) => idPath(r.path)))),
  ].filter((path) => path !== '/api/v1/leads');
  const requestPhase = (path: string) => {
    const of = phases.ours
      .map((p) => p.requests.find((r) => idPath(r.path) === path && r.start <= p.total + 0.05))
      .filter((r) => r !== undefined);
    return {
      path,
      leads: of.length,
      start: of.length
        ? round(
            quantile(
              of.map((r) => r.start),
              0.5,
            ),
            1,
          )
        : undefined,
      end: of.length
        ? round(
            quantile(
              of.map((r) => r.end),
              0.5,
            ),
            1,
          )
        : undefined,
    };
  };
  const requests = requestPaths.map(requestPhase).filter((r) => r.leads > 0);
  const firstMark = (p: Phases, what: string) => p.marks.find((m) => m.what === what)?.at;
  const markNames = [...new Set(phases.ours.flatMap((p) => p.marks.map((m) => m.what)))];
  const fmt = (v: number | undefined) => (v === undefined ? '–' : String(v));
  const sideRow = (side: Side, label: string) =>
    `| ${label} | ${phases[side].length} | ${fmt(stat(side, (p) => p.total, 0.5))} | ${fmt(stat(side, (p) => p.total, 0.9))} | ${round(Math.max(...totals(side)), 1)} | ${side === 'ours' ? formatRatio(ratio) : '1×'} |`;
  const phaseRow = (what: string, pick: (p: Phases) => number | undefined) =>
    `| ${what} | ${fmt(median('ours', pick))} | ${fmt(median('reference', pick))} |`;
  const oursFrame = median('ours', (p) => p.frame);
  const callUserAgain = median('ours', (p) => p.callUserAgain);
  const oursTotal = p50('ours');
  const callUser = requests.find((r) => r.path.includes('call'));
  const ringtone = median('ours', (p) => firstMark(p, 'media play() resolved'));
  const missedBy = met
    ? undefined
    : `p50 ${oursTotal} ms against ≤ ${round(p50('reference') * TARGET, 1)} ms (medians after the POST): the invite frame reaches the page at ${fmt(oursFrame)} ms (bare push: ${fmt(median('reference', (p) => p.frame))} ms); the softphone SDK hands the call to the console once its ringtone plays (play() resolved at ${fmt(ringtone)} ms); ${callUser ? `the console then loads ${callUser.path} (${fmt(callUser.start)}–${fmt(callUser.end)} ms; the same GET alone, 100 ms later: ${fmt(callUserAgain)} ms; the POST itself answered at ${fmt(median('ours', (p) => p.answered))} ms) and` : ''} React renders the ringing view`;
  const runSeconds = Math.round((Date.now() - started) / 1000);
  const markdown = [
    '## Incoming lead: POST → "Incoming Lead!" in the agent\'s page',
    '',
    runLine({
      name: 'incoming-lead',
      script: 'bench/console/incoming-lead.ts',
      chromiumVersion,
      loadAtStart,
      startedAt: started,
    }),
    '',
    `**Set-up.** *Ours*: the built product (\`node apps/server/dist/main.js\`, fresh data folder with the demo seed, \`LOG_LEVEL=warn\`) on 127.0.0.1; agent1 logged in to the console in Chromium, the softphone registered (the gateway's \`ready\`), status Available, the only agent online. *Reference*: a plain Node HTTP server with a \`ws\` server (bench/console/bare-lead-server.ts) serving a plain page (a few lines of DOM script, no React, no bundle: the floor) that, on a pushed \`invite\` frame, replaces 'Waiting for lead...' with \`<h2>Incoming Lead!</h2>\`; its \`POST /api/v1/leads\` parses the JSON body, pushes one frame and answers 201. Both pages in the same Chromium, each in its own context, with the same init script (bench/console/page-timer.ts). **Timed**: each page posts the lead itself (\`fetch('/api/v1/leads')\`, same origin, \`Authorization: Bearer demo-api-key\`, \`{fname, lname, phone_number}\`, a new number each time) so that both ends are read on the page's one clock: from \`performance.now()\` just before \`fetch\` to the start of the MutationObserver callback that finds 'Incoming Lead!' in \`<body>\` (React's commit, before layout and paint). After each lead ours is ignored (Ignore → \`POST /apps/webrtc/{id}/reject\`; the console waits again, Available; the lead ends missed) and the reference page is reset; 300 ms pause. ${WARMUP} warm-up leads each, then ${LEADS} measured each, interleaved lead by lead (the side going first alternating).`,
    '',
    '| POST → text in the DOM | leads | p50 ms | p90 ms | max ms | p50 / reference |',
    '|---|---:|---:|---:|---:|---:|',
    sideRow('ours', 'Leadline console (built product)'),
    sideRow('reference', 'bare `ws` push to a plain page (reference)'),
    '',
    `Target ≤ ${TARGET}×: **${met ? 'met' : 'missed'}** (${formatRatio(ratio)}).`,
    '',
    'Where the time goes (medians, ms after the POST was sent, in the page):',
    '',
    '| Phase | ours | reference |',
    '|---|---:|---:|',
    phaseRow('POST answered (`fetch` resolved)', (p) => p.answered),
    phaseRow('the `invite` frame received (WebSocket `message`)', (p) => p.frame),
    ...(phases.ours.some((p) => p.realtime !== undefined)
      ? [phaseRow('first realtime (pusher) frame received', (p) => p.realtime)]
      : []),
    ...requests.map(
      (r) =>
        `| \`GET ${r.path}\` (${r.leads} of ${phases.ours.length} leads): start – end | ${fmt(r.start)} – ${fmt(r.end)} | – |`,
    ),
    ...markNames.map((what) =>
      phaseRow(
        `${what} (${phases.ours.filter((p) => firstMark(p, what) !== undefined).length} of ${phases.ours.length} leads)`,
        (p) => firstMark(p, what),
      ),
    ),
    phaseRow("'Incoming Lead!' in the DOM", (p) => p.total),
    ...(callUserAgain === undefined
      ? []
      : [
          `| the same call-user GET again, 100 ms later (duration, not a point in time) | ${callUserAgain} | – |`,
        ]),
    phaseRow('next animation frame', (p) => p.nextFrame),
    '',
    `Reproduce: \`npm run build\` once, then \`npx tsx bench/console/incoming-lead.ts\` (\`BENCH_LEADS\`, \`BENCH_WARMUP\`); the JSON row is in bench/results/latest.json (\`incoming-lead\`, with every lead's phases).`,
  ].join('\n');
  writeSection('incoming-lead', markdown);
  recordRow({
    name: 'incoming-lead',
    title: 'incoming lead',
    statistic: `p50 over ${LEADS} leads`,
    ours: { label: "console: POST /api/v1/leads → 'Incoming Lead!'", value: oursTotal, unit: 'ms' },
    reference: { label: 'bare ws push to a plain page', value: p50('reference'), unit: 'ms' },
    ratio: round(ratio, 2),
    target: `≤ ${TARGET}×`,
    met,
    ...(missedBy ? { missedBy } : {}),
    command: 'npm run bench -- incoming-lead',
    details: {
      chromium: chromiumVersion,
      loadAverage: { start: loadAtStart, end: loadavg() },
      p90: {
        ours: stat('ours', (p) => p.total, 0.9),
        reference: stat('reference', (p) => p.total, 0.9),
      },
      max: { ours: Math.max(...totals('ours')), reference: Math.max(...totals('reference')) },
      requests,
      leads: phases,
    },
  });
  console.log(markdown);
  console.log(`\nincoming-lead: wrote its section of docs/benchmarks.md in ${runSeconds} s`);
} catch (error) {
  console.error(error);
  if (product) console.error(`product output:\n${product.output().slice(-4000)}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
