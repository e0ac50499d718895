/**
 * The `app-load` section of docs/benchmarks.md (the console's login page interactive, cold, next
 * to a Vite + React hello world), rendered from the loads bench/console/app-load.ts measured
 * (stored in bench/results/sections/app-load.json). Pure: no clock, no machine, no files.
 */
import { formatRatio } from '../lib/results';
import { quantile, round } from '../lib/stats';
import type { Mark } from './page-timer';
import { runLine, type RunLineData } from './run-line';

/**
 * `oursNoSw`: ours again with service workers blocked (Playwright's `serviceWorkers: 'block'`),
 * not the headline: what the console's service worker (registered once the first view shows and
 * the browser is idle, then fetching its precache list) costs the login page.
 */
export type AppLoadSide = 'ours' | 'hello' | 'oursNoSw';
export const APP_LOAD_SIDES: readonly AppLoadSide[] = ['ours', 'hello', 'oursNoSw'];

const SIDE_LABEL: Record<AppLoadSide, string> = {
  ours: 'ours',
  hello: 'hello',
  oursNoSw: 'ours, service workers blocked',
};

/** A request of a load (resource timing; ms since the navigation started; bytes). */
export interface AppLoadRequest {
  path: string;
  type: string;
  start: number;
  end: number;
  transferred: number;
  body: number;
}

/** One cold load (ms since the navigation started; bytes). */
export interface AppLoad {
  interactive: number;
  frameAt?: number;
  /** The document (index.html) received: the navigation entry's `responseEnd`. */
  htmlEnd: number;
  domContentLoaded: number;
  load: number;
  transferred: number;
  requests: AppLoadRequest[];
  /** The page's fetches (`fetch <method> <path> called|resolved`) up to the load event. */
  calls: Mark[];
  /** Chromium's cumulative durations in the page after the load event, ms. */
  scriptMs: number;
  taskMs: number;
  layoutMs: number;
  styleMs: number;
}

/** What the app-load benchmark measured, and with which settings. */
export interface AppLoadSectionData {
  run: RunLineData;
  /** Measured loads of each headline side. */
  loadCount: number;
  /** Target: ours' p50 at most this many times the hello world's. */
  target: number;
  loads: Record<AppLoadSide, AppLoad[]>;
}

/** The headline figures, and the median loads they describe. */
export function appLoadFigures(loads: Record<AppLoadSide, AppLoad[]>, target: number) {
  const q = (side: AppLoadSide, pick: (l: AppLoad) => number, p: number) =>
    round(quantile(loads[side].map(pick), p), 1);
  const ours50 = q('ours', (l) => l.interactive, 0.5);
  const hello50 = q('hello', (l) => l.interactive, 0.5);
  const ratio = ours50 / hello50;
  const met = ratio <= target;
  const kB = (bytes: number) => round(bytes / 1024, 1);
  /** The requests of a side's median load made before it was interactive. */
  const beforeInteractive = (side: AppLoadSide) => {
    const sorted = [...loads[side]].sort((a, b) => a.interactive - b.interactive);
    const load = sorted[Math.max(0, Math.ceil(sorted.length / 2) - 1)]!;
    return {
      load,
      requests: load.requests.filter((r) => r.start < load.interactive),
    };
  };
  const medianOurs = beforeInteractive('ours');
  const medianHello = beforeInteractive('hello');
  const bytesBefore = (side: AppLoadSide) =>
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
    : `p50 ${ours50} ms against ≤ ${round(hello50 * target, 1)} ms; before interactive ours made ${medianOurs.requests.length} requests, ${kB(bytesBefore('ours'))} kB (hello: ${medianHello.requests.length}, ${kB(bytesBefore('hello'))} kB)${apiBefore.length ? `, and called ${apiBefore.map((r) => `${r.path} (${round(r.start, 0)}–${round(r.end, 0)} ms)`).join(', ')}` : ''}${swRegistered === undefined ? '' : `${swRegistered > ours50 ? '; the service worker registered' : ', the service worker registered'} at ${round(swRegistered, 0)} ms${swRegistered > ours50 ? ', after the form was interactive' : ' and installing meanwhile'} (service workers blocked: ${noSw50} ms, ${formatRatio(noSw50 / hello50)})`}; script ${q('ours', (l) => l.scriptMs, 0.5)} ms against ${q('hello', (l) => l.scriptMs, 0.5)} ms`;
  return {
    q,
    kB,
    ours50,
    hello50,
    ratio,
    met,
    missedBy,
    beforeInteractive,
    medianOurs,
    medianHello,
  };
}

/** The section's markdown. */
export function renderAppLoadSection(data: AppLoadSectionData): string {
  const { loads, target, loadCount } = data;
  const { q, kB, ours50, hello50, ratio, met, beforeInteractive } = appLoadFigures(loads, target);
  const requestRows = (side: AppLoadSide, label: string) =>
    beforeInteractive(side).requests.map(
      (r) =>
        `| ${label} | \`${r.path}\` (${r.type}) | ${round(r.start, 1)} | ${round(r.end, 1)} | ${kB(r.transferred)} | ${kB(r.body)} |`,
    );
  const row = (what: string, pick: (l: AppLoad) => number, unit = 'ms', digits = 1) => {
    const v = (side: AppLoadSide, p: number) => round(quantile(loads[side].map(pick), p), digits);
    return `| ${what} | ${v('ours', 0.5)} / ${v('ours', 0.9)} | ${v('hello', 0.5)} / ${v('hello', 0.9)} | ${v('oursNoSw', 0.5)} / ${v('oursNoSw', 0.9)} | ${unit} |`;
  };
  const callRows = (side: AppLoadSide) => {
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
  return [
    '## App load: the login page interactive, cold',
    '',
    runLine(data.run),
    '',
    `**Set-up.** *Ours*: the built product (\`node apps/server/dist/main.js\`, fresh data folder, \`LOG_LEVEL=warn\`) serving the built console (apps/web/dist, \`@fastify/static\`) at \`http://127.0.0.1:<port>/\`, the login page (no session). The console renders the login form once its session check (\`GET /api/v1/user\`, sent as the bundle starts to evaluate: apps/web/src/early-session.ts) has found no session. *Reference*: a Vite + React hello world (bench/console/hello: a heading and a button, \`createRoot\` + \`StrictMode\` on \`#app\` as the console mounts) built by the bench with the console's Vite and \`@vitejs/plugin-react\` and the console's build options (apps/web/vite.config.ts: \`react()\`, default minification and target; the console's service-worker plugin left out) into a temporary folder, served by Fastify + \`@fastify/static\` registered with the product's options (bench/console/static-server.ts; no compression on either side, the plugin's default cache headers; the product's helmet headers not added). **Cold**: every load in a fresh browser context (empty HTTP cache, no service worker, new connections). **Interactive**: the start of the first MutationObserver callback (init script bench/console/page-timer.ts, the same on both sides) that finds the app's rendered form in the DOM — ours: the login form's e-mail field and submit button (\`input[type=email]\`, \`button[type=submit]\`), rendered by React once its script has run; hello: its button — in ms since the navigation started (\`performance.now()\`, origin \`performance.timeOrigin\`). DOMContentLoaded and load are the navigation entry's \`…EventEnd\`; bytes are \`transferSize\` over the navigation and resource entries (everything fetched up to the load event); script/task/layout are Chromium's \`Performance.getMetrics\` durations read after the load event. *Not the headline*: ours again in contexts with service workers blocked (Playwright's \`serviceWorkers: 'block'\`): the console registers its service worker once its first view (here the login form) is shown and the browser is idle (apps/web/src/sw/register.ts), and its install fetches and caches the build's files (its precache list); that side shows what this costs a cold load, if anything. One warm-up load each, then ${loadCount} each (the non-headline side ${loads.oursNoSw.length}: every other round), interleaved (the side going first rotating).`,
    '',
    '| Interactive (cold load) | loads | p50 ms | p90 ms | p50 / hello |',
    '|---|---:|---:|---:|---:|',
    `| Leadline console login page (built product) | ${loadCount} | ${ours50} | ${q('ours', (l) => l.interactive, 0.9)} | ${formatRatio(ratio)} |`,
    `| Vite + React hello world (reference) | ${loadCount} | ${hello50} | ${q('hello', (l) => l.interactive, 0.9)} | 1× |`,
    `| *not the headline*: the console with service workers blocked | ${loads.oursNoSw.length} | ${q('oursNoSw', (l) => l.interactive, 0.5)} | ${q('oursNoSw', (l) => l.interactive, 0.9)} | ${formatRatio(q('oursNoSw', (l) => l.interactive, 0.5) / hello50)} |`,
    '',
    `Target ≤ ${target}×: **${met ? 'met' : 'missed'}** (${formatRatio(ratio)}).`,
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
}
