/**
 * The `incoming-lead` section of docs/benchmarks.md (POST → 'Incoming Lead!' in the agent's page,
 * next to a bare WebSocket push), rendered from the leads bench/console/incoming-lead.ts
 * measured (stored in bench/results/sections/incoming-lead.json). Pure: no clock, no machine,
 * no files.
 */
import { loadSentence } from '../lib/machine-load';
import { formatRatio, type Machine } from '../lib/results';
import { sourceSentence, type SourceState } from '../lib/source-state';
import { quantile, round } from '../lib/stats';

/** One way of running the product. */
export interface IncomingLeadSetup {
  id: 'pglite-1' | 'postgres-1' | 'postgres-3';
  title: string;
  database: 'pglite' | 'postgres';
  instances: number;
  /** The row of the summary table (bench/results/latest.json). */
  row: string;
}

/** Phases of one lead, ms after the POST was sent (what the section reads of a lead). */
export interface LeadPhases {
  total: number;
  answered: number;
  frame?: number;
  realtime?: number;
  nextFrame?: number;
  callUserAgain?: number;
  /** Wrapped calls (media play(), WebRTC) between the POST and the text: what → ms. */
  marks: Array<{ what: string; at: number }>;
  /** Requests the page made between the POST and the text (path → ms after the POST, start). */
  requests: Array<{ path: string; start: number; end: number }>;
}

/** The measured leads of one set-up in one round. */
export interface RoundPhases<Phases extends LeadPhases = LeadPhases> {
  setup: IncomingLeadSetup['id'];
  round: number;
  /** The 1-minute load average as the round of this set-up began. */
  load: number;
  ours: Phases[];
  reference: Phases[];
}

/** What the incoming-lead benchmark measured, and with which settings. */
export interface IncomingLeadSectionData {
  /** ISO time the section was made (the run's end). */
  date: string;
  machine: Machine;
  chromiumVersion: string;
  /** The command as run (with `BENCH_SETUPS` when not every set-up was measured). */
  command: string;
  /** `SERVER_DIST=… WEB_DIST_DIR=… ` when a private build was measured, else ''. */
  build: string;
  /** How long the run took (s). */
  seconds: number;
  /** The load average (1 / 5 / 15 min) at the start and at the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  source: SourceState;
  /** When the server and the console measured were built. */
  buildSentence: string;
  /** Measured leads per set-up and round, after the warm-up ones. */
  leads: number;
  warmup: number;
  /** Target: ours' p50 at most this many times the reference's. */
  target: number;
  /** The set-ups measured. */
  setups: IncomingLeadSetup[];
  measured: RoundPhases[];
}

/** A request path with its ids as `{id}`. */
export const idPath = (path: string) => path.replace(/\/\d+(?=\/|\s|$)/g, '/{id}');

const fmt = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : String(v));
const q = (values: number[], at: number) =>
  values.length ? round(quantile(values, at), 1) : undefined;
/** `median (min–max)` of per-round values. */
const spreadText = (values: number[]): string =>
  values.length > 1
    ? `${fmt(q(values, 0.5))} (${fmt(round(Math.min(...values), 1))}–${fmt(round(Math.max(...values), 1))})`
    : fmt(values[0] === undefined ? undefined : round(values[0], 1));
const firstMark = (p: LeadPhases, what: string) => p.marks.find((m) => m.what === what)?.at;
const totalsOf = (list: LeadPhases[]) => list.map((p) => p.total);

/** One set-up's figures over its rounds: the ratio to the reference, whether it met the target. */
export function incomingLeadFigures(
  setup: IncomingLeadSetup,
  measured: RoundPhases[],
  target: number,
) {
  const rounds = measured.filter((m) => m.setup === setup.id);
  const ours = rounds.flatMap((m) => m.ours);
  const reference = rounds.flatMap((m) => m.reference);
  const oursP50 = rounds.map((m) => quantile(totalsOf(m.ours), 0.5));
  const referenceP50 = rounds.map((m) => quantile(totalsOf(m.reference), 0.5));
  const ratios = rounds.map((_, i) => oursP50[i]! / referenceP50[i]!);
  const ratio = quantile(ratios, 0.5);
  const met = ratio <= target;
  const median = (list: LeadPhases[], pick: (p: LeadPhases) => number | undefined) =>
    q(
      list.map(pick).filter((v): v is number => v !== undefined),
      0.5,
    );
  // The requests ours made between the POST and the text, with their median start and end.
  const paths = [...new Set(ours.flatMap((p) => p.requests.map((r) => idPath(r.path))))].filter(
    (path) => path !== '/api/v1/leads',
  );
  const requests = paths
    .map((path) => {
      const of = ours
        .map((p) => p.requests.find((r) => idPath(r.path) === path && r.start <= p.total + 0.05))
        .filter((r) => r !== undefined);
      return {
        path,
        leads: of.length,
        start: q(
          of.map((r) => r.start),
          0.5,
        ),
        end: q(
          of.map((r) => r.end),
          0.5,
        ),
      };
    })
    .filter((r) => r.leads > 0);
  const callUser = requests.find((r) => r.path.includes('callusers'));
  const callUserAgain = median(ours, (p) => p.callUserAgain);
  const ringtone = median(ours, (p) => firstMark(p, 'media play() resolved'));
  const oursMedianP50 = quantile(oursP50, 0.5);
  const referenceMedianP50 = quantile(referenceP50, 0.5);
  const budget = round(referenceMedianP50 * target, 1);
  const frame = median(ours, (p) => p.frame);
  const referenceFrame = median(reference, (p) => p.frame);
  const hasGet = callUser !== undefined && callUser.leads * 2 > ours.length;
  // What the console waited for last before rendering: the SDK's call (after its ringtone), or
  // the call user.
  const ready = Math.max(ringtone ?? 0, hasGet ? (callUser.end ?? 0) : 0);
  const steps = [
    `the invite frame reaches the page at ${fmt(frame)} ms (bare push: ${fmt(referenceFrame)} ms)${frame !== undefined && frame > budget ? ', past the whole budget already' : ''}`,
    `the softphone SDK hands the call over once its ringtone plays (play() resolved at ${fmt(ringtone)} ms)`,
    hasGet
      ? `the console's GET ${callUser.path} runs ${fmt(callUser.start)}–${fmt(callUser.end)} ms (${fmt(round((callUser.end ?? 0) - (callUser.start ?? 0), 1))} ms; the same GET alone, 100 ms later: ${fmt(callUserAgain)} ms)${
          callUser.start !== undefined && ringtone !== undefined && callUser.start < ringtone
            ? ', started as the invite arrived, alongside the ringtone'
            : ', after the ringtone'
        }`
      : 'the call user came with the invite (no GET)',
    `React renders the ringing view ${fmt(round(oursMedianP50 - ready, 1))} ms after the last of them`,
  ];
  const missedBy = met
    ? undefined
    : `p50 ${round(oursMedianP50, 1)} ms against ≤ ${budget} ms (medians after the POST): ${steps.join('; ')}`;
  return {
    setup,
    rounds,
    ours,
    reference,
    oursP50,
    referenceP50,
    ratios,
    ratio,
    met,
    missedBy,
    requests,
    callUserAgain,
    oursMedianP50,
    referenceMedianP50,
    median,
  };
}

/** The section's markdown. */
export function renderIncomingLeadSection(data: IncomingLeadSectionData): string {
  const { measured, setups, machine: m, build, target, leads } = data;
  const figures = setups.map((setup) => incomingLeadFigures(setup, measured, target));
  const allReference = measured.flatMap((r) => r.reference);
  const date = data.date.slice(0, 16).replace('T', ' ');

  const headline = figures.map(
    (f) =>
      `| ${f.setup.title} | ${f.rounds.length} × ${leads} | ${spreadText(f.oursP50)} | ${fmt(q(totalsOf(f.ours), 0.9))} | ${fmt(round(Math.max(...totalsOf(f.ours)), 1))} | ${spreadText(f.referenceP50)} | ${formatRatio(f.ratio)} (${formatRatio(Math.min(...f.ratios))}–${formatRatio(Math.max(...f.ratios))}) | ${f.met ? 'yes' : `**no** (${formatRatio(f.ratio)} against ≤ ${target}×)`} |`,
  );
  const perRound = measured.map((r) => {
    const setup = setups.find((s) => s.id === r.setup)!;
    const triple = (list: LeadPhases[]) =>
      `${fmt(q(totalsOf(list), 0.5))} / ${fmt(q(totalsOf(list), 0.9))} / ${fmt(round(Math.max(...totalsOf(list)), 1))}`;
    return `| ${setup.title} | ${r.round} | ${round(r.load, 2)} | ${triple(r.ours)} | ${triple(r.reference)} | ${formatRatio(quantile(totalsOf(r.ours), 0.5) / quantile(totalsOf(r.reference), 0.5))} |`;
  });

  // Where the time goes: one column per set-up (ours), then the reference (all rounds pooled).
  const markNames = [
    ...new Set(figures.flatMap((f) => f.ours.flatMap((p) => p.marks.map((k) => k.what)))),
  ];
  const requestPaths = [...new Set(figures.flatMap((f) => f.requests.map((r) => r.path)))];
  const phaseRow = (what: string, pick: (p: LeadPhases) => number | undefined, reference = true) =>
    `| ${what} | ${figures
      .map((f) => {
        const n = f.ours.filter((p) => pick(p) !== undefined).length;
        const value = f.median(f.ours, pick);
        return n === 0
          ? '–'
          : n === f.ours.length
            ? fmt(value)
            : `${fmt(value)} (${n} of ${f.ours.length})`;
      })
      .join(' | ')} | ${reference ? fmt(figures[0]?.median(allReference, pick)) : '–'} |`;
  const requestRow = (path: string) =>
    `| \`GET ${path}\`: start – end | ${figures
      .map((f) => {
        const r = f.requests.find((x) => x.path === path);
        return r
          ? `${fmt(r.start)} – ${fmt(r.end)}${r.leads === f.ours.length ? '' : ` (${r.leads} of ${f.ours.length})`}`
          : '–';
      })
      .join(' | ')} | – |`;

  return [
    '## Incoming lead: POST → "Incoming Lead!" in the agent\'s page, on PGlite and PostgreSQL, 1 and 3 instances',
    '',
    `Run ${date} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; Chromium ${data.chromiumVersion} (headless, the e2e flags of e2e/support/browser.ts). Command: \`${data.command}\` (alone: \`${build}npx tsx bench/console/incoming-lead.ts\`${build ? ', as run here, on a private build' : ''}; ${data.seconds} s). ${loadSentence(data.loadAtStart, data.loadAtEnd)} Other work on the machine shows in every figure; the ratio, taken lead by lead against the reference, is the figure to read. ${sourceSentence(data.source)} ${data.buildSentence}`,
    '',
    `**Set-up.** *Ours*, three set-ups, every round in turn (the order turning by one each round), each started afresh for its round: the built product (\`node apps/server/dist/main.js\`, \`LOG_LEVEL=warn\`, on 127.0.0.1) on PGlite (a fresh data folder), on a fresh PostgreSQL database, and as three instances on one fresh PostgreSQL database with the same \`TOKEN_SECRET\` and \`PUSHER_SECRET\` (the first leads the media; the console is logged in through the second, a follower, so its page, its POSTs and its sockets go through the follower, which relays the calls' routes and the signalling to the leader). The demo seed; agent1 logged in to the console in Chromium, the softphone registered (the gateway's \`ready\`), status Available, the only agent online. Nothing is pinned to a core. *Reference*: a plain Node HTTP server with a \`ws\` server (bench/console/bare-lead-server.ts) serving a plain page (a few lines of DOM script, no React, no bundle: the floor) that, on a pushed \`invite\` frame, replaces 'Waiting for lead...' with \`<h2>Incoming Lead!</h2>\`; its \`POST /api/v1/leads\` parses the JSON body, pushes one frame and answers 201. Both pages in the same Chromium, each in its own context, with the same init script (bench/console/page-timer.ts). **Timed**: each page posts the lead itself (\`fetch('/api/v1/leads')\`, same origin, \`Authorization: Bearer demo-api-key\`, \`{fname, lname, phone_number}\`, a new number each time) so that both ends are read on the page's one clock: from \`performance.now()\` just before \`fetch\` to the start of the MutationObserver callback that finds 'Incoming Lead!' in \`<body>\` (React's commit, before layout and paint). After each lead ours is ignored (Ignore → \`POST /apps/webrtc/{id}/reject\`; the console waits again, Available; the lead ends missed) and the reference page is reset; 300 ms pause. Per set-up and round: ${data.warmup} warm-up leads each, then ${leads} measured each, interleaved lead by lead (the side going first alternating). Target (issue 38, item 4): ours at most ${target}× the reference, judged on the median over the rounds of each round's p50 ratio.`,
    '',
    '| Set-up | Rounds × leads | Ours p50 (ms), median (min–max) of the rounds | Ours p90 (ms), pooled | Ours max (ms) | Reference p50 (ms), median (min–max) | p50 / reference, median (min–max) | Target ≤ 3× met |',
    '|---|---|---|---:|---:|---|---|---|',
    ...headline,
    '',
    ...figures
      .filter((f) => !f.met)
      .map((f) => `- *${f.setup.title}*: target missed: ${f.missedBy}.`),
    ...(figures.some((f) => !f.met) ? [''] : []),
    'Where the time goes (medians over every measured lead of the set-up, ms after the POST was sent, in the page; "n of N" where only some leads had it):',
    '',
    `| Phase | ${figures.map((f) => f.setup.title).join(' | ')} | reference |`,
    `|---|${figures.map(() => '---:|').join('')}---:|`,
    phaseRow('POST answered (`fetch` resolved)', (p) => p.answered),
    phaseRow('the `invite` frame received (WebSocket `message`)', (p) => p.frame),
    ...(figures.some((f) => f.ours.some((p) => p.realtime !== undefined))
      ? [phaseRow('first realtime (pusher) frame received', (p) => p.realtime, false)]
      : []),
    ...requestPaths.map(requestRow),
    ...markNames.map((what) => phaseRow(what, (p) => firstMark(p, what), false)),
    phaseRow("'Incoming Lead!' in the DOM", (p) => p.total),
    ...(figures.some((f) => f.callUserAgain !== undefined)
      ? [
          phaseRow(
            'the same call-user GET again, 100 ms later (duration, not a point in time)',
            (p) => p.callUserAgain,
            false,
          ),
        ]
      : []),
    phaseRow('next animation frame', (p) => p.nextFrame),
    '',
    "Every round (*load*: the 1-minute load average as the set-up's round began, much of it the run's own earlier work):",
    '',
    '| Set-up | Round | Load | Ours p50 / p90 / max (ms) | Reference p50 / p90 / max (ms) | p50 / reference |',
    '|---|---:|---:|---|---|---:|',
    ...perRound,
    '',
    `Reproduce: \`npm run build\` once (or a private build: \`SERVER_DIST=dist-<name> node apps/server/build.mjs\` and \`cd apps/web && npx vite build --outDir /tmp/<name>-web-dist\`, then \`SERVER_DIST=… WEB_DIST_DIR=…\`), PostgreSQL on 127.0.0.1:5432 (\`BENCH_POSTGRES_URL\`), then \`npx tsx bench/console/incoming-lead.ts\` (\`BENCH_SETUPS\`, \`BENCH_ROUNDS\`, \`BENCH_LEADS\`, \`BENCH_WARMUP\`, \`BENCH_REFUSE_BUSY=1\`); the JSON rows are in bench/results/latest.json (\`incoming-lead\`, \`incoming-lead-postgres-1\`, \`incoming-lead-postgres-3\`, with every lead's phases).`,
  ].join('\n');
}
