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
import { machine, recordRow } from '../lib/results';
import { publishSection } from '../lib/sections';
import { quantile, round } from '../lib/stats';
import { killOnExit, startBuiltProduct, type BuiltProduct } from '../lib/built-product';
import {
  APP_LOAD_SIDES as SIDES,
  appLoadFigures,
  type AppLoad as Load,
  type AppLoadSide as Side,
} from './app-load-section';
import { installPageTimer, type Appearance, type PageTimer, type Seen } from './page-timer';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const TARGET = 2;
const benchDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const helloDir = fileURLToPath(new URL('./hello/', import.meta.url));

const LOGIN_FORM: Appearance = { selectors: ['input[type="email"]', 'button[type="submit"]'] };
const INTERACTIVE: Record<Side, Appearance> = {
  ours: LOGIN_FORM,
  hello: { selectors: ['button'] },
  oursNoSw: LOGIN_FORM,
};

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
  const { q, kB, ours50, hello50, ratio, met, missedBy, medianOurs, medianHello } = appLoadFigures(
    loads,
    TARGET,
  );
  const runSeconds = Math.round((Date.now() - started) / 1000);
  const loadAtEnd = loadavg();
  const markdown = publishSection('app-load', {
    run: {
      name: 'app-load',
      script: 'bench/console/app-load.ts',
      chromiumVersion,
      machine: machine(),
      loadAtStart,
      loadAtEnd,
      date: new Date().toISOString(),
      seconds: runSeconds,
    },
    loadCount: LOADS,
    target: TARGET,
    loads,
  });
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
      loadAverage: { start: loadAtStart, end: loadAtEnd },
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
