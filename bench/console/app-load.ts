/**
 * App load (`npx tsx bench/console/app-load.ts`, `npm run bench -- app-load`): the console's
 * login page becoming interactive, cold, in Chromium on localhost, next to a Vite + React hello
 * world built the same way, measured in the same run, load by load.
 *
 * Ours: the built product (console/built-product.ts) serving the built console (apps/web/dist)
 * at `/`. Reference: bench/console/hello (a heading and a button), built by this script with the
 * console's Vite and React plugin and its build options (apps/web/vite.config.ts: `react()`,
 * default minification and target; not the console's service-worker plugin) into a temporary
 * folder, served by Fastify with `@fastify/static` registered as the product registers it
 * (console/static-server.ts). Each load is cold: a fresh browser context (empty HTTP cache, no
 * service worker, new connections, its own renderer process). "Interactive" is the first
 * moment, seen by the init script's MutationObserver (console/page-timer.ts), at which the
 * page's React app has rendered its form: for ours the login form's e-mail field and submit
 * button (`input[type=email]`, `button[type=submit]`), for the hello world its button; in
 * `performance.now()` ms, i.e. since the navigation started. Also per load: DOMContentLoaded,
 * the load event, the bytes transferred (navigation and resource timing), the requests made
 * before interactive, and Chromium's script/task/layout durations (CDP `Performance.getMetrics`,
 * read right after the load event). A third side, not the headline: ours with service workers
 * blocked (what the console's service worker, registered once the first view shows and the
 * browser is idle, costs a cold load).
 *
 * Environment: `BENCH_LOADS` (20).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { build, type PluginOption } from 'vite';
import { CHROMIUM_ARGS } from '../../e2e/support/browser';
import { ready, stopChild } from '../lib/processes';
import { writeSection } from '../lib/report';
import { formatRatio, recordRow } from '../lib/results';
import { quantile, round } from '../lib/stats';
import { runLine } from './run-line';
import { killOnExit, startBuiltProduct, type BuiltProduct } from '../lib/built-product';
import {
  installPageTimer,
  type Appearance,
  type Mark,
  type PageTimer,
  type Seen,
} from './page-timer';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const TARGET = 2;
const benchDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const helloDir = fileURLToPath(new URL('./hello/', import.meta.url));

/**
 * `oursNoSw`: ours again with service workers blocked (Playwright's `serviceWorkers: 'block'`),
 * not the headline: what the console's service worker (registered once the first view shows and
 * the browser is idle, then fetching its precache list) costs the login page.
 */
type Side = 'ours' | 'hello' | 'oursNoSw';
const SIDES: readonly Side[] = ['ours', 'hello', 'oursNoSw'];

const SIDE_LABEL: Record<Side, string> = {
  ours: 'ours',
  hello: 'hello',
  oursNoSw: 'ours, service workers blocked',
};

const LOGIN_FORM: Appearance = { selectors: ['input[type="email"]', 'button[type="submit"]'] };
const INTERACTIVE: Record<Side, Appearance> = {
  ours: LOGIN_FORM,
  hello: { selectors: ['button'] },
  oursNoSw: LOGIN_FORM,
};

interface Request {
  path: string;
  type: string;
  start: number;
  end: number;
  transferred: number;
  body: number;
}

/** One cold load (ms since the navigation started; bytes). */
interface Load {
  interactive: number;
  frameAt?: number;
  /** The document (index.html) received: the navigation entry's `responseEnd`. */
  htmlEnd: number;
  domContentLoaded: number;
  load: number;
  transferred: number;
  requests: Request[];
  /** The page's fetches (`fetch <method> <path> called|resolved`) up to the load event. */
  calls: Mark[];
  /** Chromium's cumulative durations in the page after the load event, ms. */
  scriptMs: number;
  taskMs: number;
  layoutMs: number;
  styleMs: number;
}

// ---------------------------------------------------------------- set-up and clean-up

let product: BuiltProduct | undefined;
let helloServer: ChildProcess | undefined;
let browser: Browser | undefined;
const helloDist = mkdtempSync(join(tmpdir(), 'leadline-bench-hello-'));
process.once('exit', () => rmSync(helloDist, { recursive: true, force: true }));

async function cleanUp(): Promise<void> {
  await browser?.close().catch(() => undefined);
  if (helloServer) await stopChild(helloServer, 5_000);
  await product?.stop();
  rmSync(helloDist, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(1));
  });
}

/** Builds the hello world with the console's Vite and React plugin (resolved from apps/web). */
async function buildHello(): Promise<void> {
  const fromWeb = createRequire(join(repoRoot, 'apps/web/package.json'));
  const plugin = (await import(pathToFileURL(fromWeb.resolve('@vitejs/plugin-react')).href)) as {
    default: () => PluginOption;
  };
  await build({
    configFile: false,
    root: helloDir,
    logLevel: 'warn',
    plugins: [plugin.default()],
    build: { outDir: helloDist, emptyOutDir: true },
  });
}

/** Loads `url` in a fresh context and measures it. */
async function coldLoad(url: string, side: Side): Promise<Load> {
  const context = await browser!.newContext(side === 'oursNoSw' ? { serviceWorkers: 'block' } : {});
  try {
    const page = await context.newPage();
    await installPageTimer(page, INTERACTIVE[side]);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(url, { waitUntil: 'load' });
    const inPage = await page.evaluate(async () => {
      const timer = (window as unknown as { __benchTimer: PageTimer }).__benchTimer;
      const seen: Seen = await timer.seen(30_000);
      const navigation = () =>
        performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      while (navigation().loadEventEnd === 0) await new Promise((r) => setTimeout(r, 5));
      const nav = navigation();
      const entries = [nav, ...performance.getEntriesByType('resource')].map((e) => {
        const r = e as PerformanceResourceTiming;
        return {
          path: new URL(r.name).pathname,
          type: r.initiatorType,
          start: r.startTime,
          end: r.responseEnd,
          transferred: r.transferSize,
          body: r.encodedBodySize,
        };
      });
      return {
        seen,
        domContentLoaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        requests: entries,
        calls: timer.marks.filter(
          (m) => m.what.startsWith('fetch ') || m.what.startsWith('serviceWorker'),
        ),
      };
    });
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) =>
      round((metrics.find((m) => m.name === name)?.value ?? 0) * 1000, 1);
    return {
      interactive: inPage.seen.at,
      ...(inPage.seen.frameAt === undefined ? {} : { frameAt: inPage.seen.frameAt }),
      htmlEnd: inPage.requests[0]!.end,
      domContentLoaded: inPage.domContentLoaded,
      load: inPage.load,
      transferred: inPage.requests.reduce((sum, r) => sum + r.transferred, 0),
      requests: inPage.requests,
      calls: inPage.calls,
      scriptMs: metric('ScriptDuration'),
      taskMs: metric('TaskDuration'),
      layoutMs: metric('LayoutDuration'),
      styleMs: metric('RecalcStyleDuration'),
    };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------- the run

const started = Date.now();
const loadAtStart = loadavg();
try {
  const [started1] = await Promise.all([startBuiltProduct(), buildHello()]);
  product = started1;
  helloServer = spawn(process.execPath, ['--import', 'tsx', 'console/static-server.ts'], {
    cwd: benchDir,
    env: { ...process.env, ROOT: helloDist },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(helloServer);
  const { port } = await ready<{ port: number }>(helloServer, 'the hello-world server');
  const urls: Record<Side, string> = {
    ours: `${product.url}/`,
    oursNoSw: `${product.url}/`,
    hello: `http://127.0.0.1:${port}/`,
  };
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const chromiumVersion = browser.version();

  const loads: Record<Side, Load[]> = { ours: [], hello: [], oursNoSw: [] };
  // One warm-up load each (the servers' first requests, Chromium's own start-up), then alternate.
  for (const side of SIDES) await coldLoad(urls[side], side);
  for (let i = 0; i < LOADS; i++) {
    // Rotate which side goes first, so drifts in the machine's load hit all alike.
    // The non-headline side every other round only (time: the run stays well under 3 minutes on
    // a loaded 2-core machine).
    const sides = i % 2 === 0 ? SIDES : SIDES.filter((side) => side !== 'oursNoSw');
    const order = sides.map((_, k) => sides[(i + k) % sides.length]!);
    for (const side of order) loads[side].push(await coldLoad(urls[side], side));
  }

  // ---------------------------------------------------------------- report
  const q = (side: Side, pick: (l: Load) => number, p: number) =>
    round(quantile(loads[side].map(pick), p), 1);
  const ours50 = q('ours', (l) => l.interactive, 0.5);
  const hello50 = q('hello', (l) => l.interactive, 0.5);
  const ratio = ours50 / hello50;
  const met = ratio <= TARGET;
  const kB = (bytes: number) => round(bytes / 1024, 1);
  /** The requests of a side's median load made before it was interactive. */
  const beforeInteractive = (side: Side) => {
    const sorted = [...loads[side]].sort((a, b) => a.interactive - b.interactive);
    const load = sorted[Math.max(0, Math.ceil(sorted.length / 2) - 1)]!;
    return {
      load,
      requests: load.requests.filter((r) => r.start < load.interactive),
    };
  };
  const medianOurs = beforeInteractive('ours');
  const medianHello = beforeInteractive('hello');
  const requestRows = (side: Side, label: string) =>
    beforeInteractive(side).requests.map(
      (r) =>
        `| ${label} | \`${r.path}\` (${r.type}) | ${round(r.start, 1)} | ${round(r.end, 1)} | ${kB(r.transferred)} | ${kB(r.body)} |`,
    );
  const row = (what: string, pick: (l: Load) => number, unit = 'ms', digits = 1) => {
    const v = (side: Side, p: number) => round(quantile(loads[side].map(pick), p), digits);
    return `| ${what} | ${v('ours', 0.5)} / ${v('ours', 0.9)} | ${v('hello', 0.5)} / ${v('hello', 0.9)} | ${v('oursNoSw', 0.5)} / ${v('oursNoSw', 0.9)} | ${unit} |`;
  };
  const callRows = (side: Side) => {
    const { load } = beforeInteractive(side);
    const names = [
      ...new Set(load.calls.map((c) => c.what.replace(/ (called|resolved|rejected)$/, ''))),
    ];
    if (names.length === 0) return [`| ${SIDE_LABEL[side]} | none | | | |`];
    return names.map((name) => {
      const called = load.calls.find((c) => c.what === `${name} called`)?.at;
      const answered = load.calls.find(
        (c) => c.what === `${name} resolved` || c.what === `${name} rejected`,
      )?.at;
      const fmt = (v: number | undefined) => (v === undefined ? '–' : String(round(v, 1)));
      return `| ${SIDE_LABEL[side]} | \`${name.replace(/^fetch /, '')}\` | ${fmt(called)} | ${fmt(answered)} | ${answered !== undefined && answered < load.interactive ? 'yes' : 'no'} |`;
    });
  };
  const bytesBefore = (side: Side) =>
    beforeInteractive(side).requests.reduce((sum, r) => sum + r.transferred, 0);
  const apiBefore = medianOurs.load.calls
    .filter(
      (c) =>
        c.what.startsWith('fetch ') &&
        c.what.endsWith(' called') &&
        c.at < medianOurs.load.interactive,
    )
    .map((c) => {
      const name = c.what.replace(/ called$/, '');
      const end = medianOurs.load.calls.find((e) => e.what === `${name} resolved`)?.at;
      return { path: name.replace(/^fetch /, ''), start: c.at, end: end ?? Infinity };
    })
    // On the way to interactive: answered before it (not a call the form makes as it mounts).
    .filter((r) => r.end < medianOurs.load.interactive);
  const noSw50 = q('oursNoSw', (l) => l.interactive, 0.5);
  const swRegistered = medianOurs.load.calls.find(
    (c) => c.what === 'serviceWorker.register() called',
  )?.at;
  const missedBy = met
    ? undefined
    : `p50 ${ours50} ms against ≤ ${round(hello50 * TARGET, 1)} ms; before interactive ours made ${medianOurs.requests.length} requests, ${kB(bytesBefore('ours'))} kB (hello: ${medianHello.requests.length}, ${kB(bytesBefore('hello'))} kB)${apiBefore.length ? `, and called ${apiBefore.map((r) => `${r.path} (${round(r.start, 0)}–${round(r.end, 0)} ms)`).join(', ')}` : ''}${swRegistered === undefined ? '' : `${swRegistered > ours50 ? '; the service worker registered' : ', the service worker registered'} at ${round(swRegistered, 0)} ms${swRegistered > ours50 ? ', after the form was interactive' : ' and installing meanwhile'} (service workers blocked: ${noSw50} ms, ${formatRatio(noSw50 / hello50)})`}; script ${q('ours', (l) => l.scriptMs, 0.5)} ms against ${q('hello', (l) => l.scriptMs, 0.5)} ms`;
  const runSeconds = Math.round((Date.now() - started) / 1000);
  const markdown = [
    '## App load: the login page interactive, cold',
    '',
    runLine({
      name: 'app-load',
      script: 'bench/console/app-load.ts',
      chromiumVersion,
      loadAtStart,
      startedAt: started,
    }),
    '',
    `**Set-up.** *Ours*: the built product (\`node apps/server/dist/main.js\`, fresh data folder, \`LOG_LEVEL=warn\`) serving the built console (apps/web/dist, \`@fastify/static\`) at \`http://127.0.0.1:<port>/\`, the login page (no session). The console renders the login form once its session check (\`GET /api/v1/user\`, sent as the bundle starts to evaluate: apps/web/src/early-session.ts) has found no session. *Reference*: a Vite + React hello world (bench/console/hello: a heading and a button, \`createRoot\` + \`StrictMode\` on \`#app\` as the console mounts) built by the bench with the console's Vite and \`@vitejs/plugin-react\` and the console's build options (apps/web/vite.config.ts: \`react()\`, default minification and target; the console's service-worker plugin left out) into a temporary folder, served by Fastify + \`@fastify/static\` registered with the product's options (bench/console/static-server.ts; no compression on either side, the plugin's default cache headers; the product's helmet headers not added). **Cold**: every load in a fresh browser context (empty HTTP cache, no service worker, new connections). **Interactive**: the start of the first MutationObserver callback (init script bench/console/page-timer.ts, the same on both sides) that finds the app's rendered form in the DOM — ours: the login form's e-mail field and submit button (\`input[type=email]\`, \`button[type=submit]\`), rendered by React once its script has run; hello: its button — in ms since the navigation started (\`performance.now()\`, origin \`performance.timeOrigin\`). DOMContentLoaded and load are the navigation entry's \`…EventEnd\`; bytes are \`transferSize\` over the navigation and resource entries (everything fetched up to the load event); script/task/layout are Chromium's \`Performance.getMetrics\` durations read after the load event. *Not the headline*: ours again in contexts with service workers blocked (Playwright's \`serviceWorkers: 'block'\`): the console registers its service worker once its first view (here the login form) is shown and the browser is idle (apps/web/src/sw/register.ts), and its install fetches and caches the build's files (its precache list); that side shows what this costs a cold load, if anything. One warm-up load each, then ${LOADS} each (the non-headline side ${loads.oursNoSw.length}: every other round), interleaved (the side going first rotating).`,
    '',
    '| Interactive (cold load) | loads | p50 ms | p90 ms | p50 / hello |',
    '|---|---:|---:|---:|---:|',
    `| Leadline console login page (built product) | ${LOADS} | ${ours50} | ${q('ours', (l) => l.interactive, 0.9)} | ${formatRatio(ratio)} |`,
    `| Vite + React hello world (reference) | ${LOADS} | ${hello50} | ${q('hello', (l) => l.interactive, 0.9)} | 1× |`,
    `| *not the headline*: the console with service workers blocked | ${loads.oursNoSw.length} | ${q('oursNoSw', (l) => l.interactive, 0.5)} | ${q('oursNoSw', (l) => l.interactive, 0.9)} | ${formatRatio(q('oursNoSw', (l) => l.interactive, 0.5) / hello50)} |`,
    '',
    `Target ≤ ${TARGET}×: **${met ? 'met' : 'missed'}** (${formatRatio(ratio)}).`,
    '',
    '| p50 / p90 | ours | hello | ours, service workers blocked | unit |',
    '|---|---:|---:|---:|---|',
    row('interactive', (l) => l.interactive),
    row('next animation frame after interactive', (l) => l.frameAt ?? Number.NaN),
    row('index.html received', (l) => l.htmlEnd),
    row('DOMContentLoaded', (l) => l.domContentLoaded),
    row('load event', (l) => l.load),
    row('transferred up to the load event', (l) => l.transferred / 1024, 'kB'),
    row('requests up to the load event', (l) => l.requests.length, 'requests', 0),
    row('script duration (V8: compile + run)', (l) => l.scriptMs),
    row('task duration (main thread busy)', (l) => l.taskMs),
    row('layout + style', (l) => l.layoutMs + l.styleMs),
    '',
    `Requests started before interactive in the median load of each side (ms since the navigation started; kB transferred / body):`,
    '',
    '| Side | Request | start | end | kB transferred | kB body |',
    '|---|---|---:|---:|---:|---:|',
    ...requestRows('ours', 'ours'),
    ...requestRows('hello', 'hello'),
    ...requestRows('oursNoSw', 'ours, service workers blocked'),
    '',
    `The page's own \`fetch\` calls and its service-worker registration in the median load of each side (ms since the navigation started; from the init script's wrappers, as resource timing was seen to miss some of the calls; the service worker's own fetches are not the page's and are not counted above):`,
    '',
    '| Side | Call | called | response | answered before interactive |',
    '|---|---|---:|---:|---|',
    ...callRows('ours'),
    ...callRows('hello'),
    ...callRows('oursNoSw'),
    '',
    'Reproduce: `npm run build` once, then `npx tsx bench/console/app-load.ts` (`BENCH_LOADS`); the JSON row is in bench/results/latest.json (`app-load`, with every load).',
  ].join('\n');
  writeSection('app-load', markdown);
  recordRow({
    name: 'app-load',
    title: 'app load',
    statistic: `p50 over ${LOADS} cold loads`,
    ours: { label: 'console login page interactive, cold', value: ours50, unit: 'ms' },
    reference: { label: 'Vite React hello world interactive, cold', value: hello50, unit: 'ms' },
    ratio: round(ratio, 2),
    target: `≤ ${TARGET}×`,
    met,
    ...(missedBy ? { missedBy } : {}),
    command: 'npm run bench -- app-load',
    details: {
      chromium: chromiumVersion,
      loadAverage: { start: loadAtStart, end: loadavg() },
      p50: Object.fromEntries(SIDES.map((side) => [side, q(side, (l) => l.interactive, 0.5)])),
      p90: Object.fromEntries(SIDES.map((side) => [side, q(side, (l) => l.interactive, 0.9)])),
      transferredKiB: Object.fromEntries(
        SIDES.map((side) => [
          side,
          kB(
            quantile(
              loads[side].map((l) => l.transferred),
              0.5,
            ),
          ),
        ]),
      ),
      loads: Object.fromEntries(
        SIDES.map((side) => [
          side,
          loads[side].map(({ requests, ...rest }) => ({ ...rest, requests: requests.length })),
        ]),
      ),
      medianLoadRequests: { ours: medianOurs.load.requests, hello: medianHello.load.requests },
    },
  });
  console.log(markdown);
  console.log(`\napp-load: wrote its section of docs/benchmarks.md in ${runSeconds} s`);
} catch (error) {
  console.error(error);
  if (product) console.error(`product output:\n${product.output().slice(-4000)}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
