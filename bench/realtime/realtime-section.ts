/**
 * The `realtime` section of docs/benchmarks.md (status-change fan-out to pusher-js clients, next
 * to a bare `ws` broadcast), rendered from the figures bench/realtime/run.ts measured (stored in
 * bench/results/sections/realtime.json). Pure: no clock, no machine, no files.
 */
import { round } from '../lib/stats';

/** Latency statistics of one side over the measured changes (ms; counts). */
export interface RealtimeStats {
  /** Every client's receipt of every change, pooled. */
  p50: number;
  p99: number;
  max: number;
  /** Receipts pooled. */
  n: number;
  /** Per change, the first and the last client's receipt: p50 / p99 over the changes. */
  firstP50: number;
  lastP50: number;
  lastP99: number;
  /** The change's HTTP answer. */
  answeredP50: number;
  /** First to last client, per change. */
  spreadP50: number;
  /** Receipts that never came. */
  missing: number;
}

/** One side's load process while measuring. */
export interface RealtimeLoad {
  /** The load process's clock minus the clock the changes were started on. */
  clock: { offsetMs: number; errorMs: number };
  loopDelayMs: { p99: number; max: number };
  /** Its longest and total garbage-collection pause. */
  gcMs: { max: number; total: number };
}

/** What the realtime benchmark measured, and with which settings. */
export interface RealtimeSectionData {
  /** ISO date (YYYY-MM-DD) of the run. */
  date: string;
  cores: number;
  cpuModel: string;
  node: string;
  /** The load average (1 / 5 / 15 min) at the start and at the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  clients: number;
  changes: number;
  warmup: number;
  gapMs: number;
  serverCore: number;
  clientCore: number;
  /** Whether processes were pinned to cores (`taskset` found). */
  canPin: boolean;
  /** The demo account's channel. */
  account: string;
  agentEmail: string;
  event: string;
  clockSamples: number;
  /** The pusher-js clients' and the bare clients' load processes. */
  product: RealtimeLoad;
  bare: RealtimeLoad;
  /** Product: PUT → receipt; bare: send loop → receipt; bare: its triggering POST → receipt. */
  ours: RealtimeStats;
  ref: RealtimeStats;
  refHttp: RealtimeStats;
  /** The bare server's send loop to every socket, p50 over the changes (ms). */
  bareLoopP50Ms: number;
}

const ms = (value: number | null): string =>
  value === null ? '–' : (value >= 10 ? round(value, 0) : round(value, 1)).toString();
const ratio = (a: number, b: number): string => `${round(a / b, 1)}×`;
const clockNote = (load: RealtimeLoad) =>
  `${Math.abs(load.clock.offsetMs).toFixed(2)} ms (± ${load.clock.errorMs.toFixed(2)})`;
const row = (label: string, s: RealtimeStats) =>
  `| ${label} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.firstP50)} | ${ms(s.lastP50)} | ${ms(s.lastP99)} | ${s.n.toLocaleString('en')} | ${s.missing} |`;

/** The section's markdown. */
export function renderRealtimeSection(data: RealtimeSectionData): string {
  const { clients, changes, warmup, gapMs, account, ours, ref, refHttp, product, bare } = data;
  const { loadAtStart, loadAtEnd } = data;
  const busy = loadAtStart[0]! > 0.5;
  const loadNote = `Load average (1 / 5 / 15 min) ${loadAtStart.map((l) => round(l, 2)).join(' / ')} at the start, ${loadAtEnd.map((l) => round(l, 2)).join(' / ')} at the end${busy ? ': the machine was not idle when the run began, so the figures may be higher and noisier than on an idle machine' : ''}.`;
  return `## Realtime: ${clients.toLocaleString('en')} pusher-js clients, status-change fan-out

Measured ${data.date} on ${data.cores} cores (${data.cpuModel}), Node ${data.node}, with \`npx tsx bench/realtime/run.ts\`. ${loadNote}

**Set-up.** Both servers run at once on core ${data.serverCore}${data.canPin ? '' : ' (not pinned: `taskset` missing)'}, each with its clients in a load process of its own (bench/realtime/load-clients.ts) on core ${data.clientCore}, the orchestrator (bench/realtime/run.ts) unpinned; the changes alternate between the two (product, bare, product, …), so both share whatever else the machine is doing. *Product*: \`startLeadline\` (bench/realtime/product-host.ts: HTTP API, PGlite, the voice engine, the embedded Pusher-protocol endpoint at \`/app/{key}\` on the same port; \`LOG_LEVEL=warn\`) on a fresh demo database. ${clients.toLocaleString('en')} unmodified pusher-js 8 clients, configured as the console configures them for the embedded endpoint (\`enabledTransports: ['ws']\`, the spec's timeouts), client n subscribed to its own presence channel \`presence-user-<n>\` (member \`{user_id: "<n>"}\`) and to the demo account's \`${account}\`, each subscription signed with the configured secret in pusher-js's \`channelAuthorization.customHandler\` (the HMAC \`POST /api/v1/pusher/auth\` returns). Once all ${(clients * 2).toLocaleString('en')} subscriptions succeeded, ${data.agentEmail} (softphone registered over PStream, so their choice changes their status) changes status ${warmup + changes} times, Away and Available in turn (\`PUT /api/v1/user/status\`, session cookie and \`X-CSRF-TOKEN\`), each once the one before has reached every client, ${gapMs} ms apart; the first ${warmup} are warm-up. The server publishes \`${data.event}\` on \`${account}\` through the \`pusher\` library to its own HTTP events API, which sends it to the channel's subscribers. *Bare \`ws\` (reference)*: a plain Node HTTP server with a \`ws\` server (bench/realtime/bare-broadcast-server.ts) and ${clients.toLocaleString('en')} bare \`ws\` clients; ${warmup + changes} times (${warmup} warm-up), on a POST from the orchestrator, it builds the same Pusher-shaped event frame once and sends it to every socket.

- *Latency*: from just before the PUT is sent (product) or just before the bare server's send loop (reference) to a client's receipt of the event (pusher-js: its \`${data.event}\` callback on the account channel; bare: the socket's \`message\` listener, after parsing the frame and its \`data\` as pusher-js does). Every process reads \`performance.timeOrigin + performance.now()\`; against the orchestrator's clock the load process's was off by ${clockNote(product)} (pusher-js clients), and the bare clients' against the bare server's by ${clockNote(bare)} (half the shortest of ${data.clockSamples} round trips bounds each estimate). Not corrected.
- *Pooled*: every client's receipt of every measured change (${changes} × ${clients.toLocaleString('en')}). *First* / *last client*: per change, the first and last client's receipt; p50 / p99 over the ${changes} changes (of ${changes} values the p99 is the largest). The pooled p99 is the tail of a few changes: one change held up by other work on the machine moves it (the load processes' event-loop delays and garbage-collection pauses are given below), so the p50 is the steadier figure from run to run.
- Both include the load process's own work: one core (shared by the two load processes, one of them idle at a time) handles ${clients.toLocaleString('en')} receipts one after the other, so the last client's time is mostly how long that core takes to go through them (pusher-js's per-event work vs. a bare \`ws\` listener).

| Server | Pooled p50 (ms) | Pooled p99 (ms) | Max (ms) | First client p50 (ms) | Last client p50 (ms) | Last client p99 (ms) | Receipts | Missing |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${row('Product: PUT → pusher-js receipt', ours)}
${row('Bare `ws`: send loop → receipt', ref)}
| **Product / bare** | **${ratio(ours.p50, ref.p50)}** | **${ratio(ours.p99, ref.p99)}** | ${ratio(ours.max, ref.max)} | ${ratio(ours.firstP50, ref.firstP50)} | ${ratio(ours.lastP50, ref.lastP50)} | ${ratio(ours.lastP99, ref.lastP99)} | | |

For comparison, the bare server timed from just before the orchestrator's POST that triggers it (an HTTP request in, as the product's PUT is): pooled p50 ${ms(refHttp.p50)} ms, p99 ${ms(refHttp.p99)} ms, last client p50 ${ms(refHttp.lastP50)} ms (product / that: ${ratio(ours.p50, refHttp.p50)} at p50, ${ratio(ours.p99, refHttp.p99)} at p99). The bare server's send loop (${clients.toLocaleString('en')} \`send\` calls) took ${ms(data.bareLoopP50Ms)} ms (p50). The PUT was answered after ${ms(ours.answeredP50)} ms (p50). While the changes were measured the load processes' event loops ran late by p99 ${ms(product.loopDelayMs.p99)} ms, at most ${ms(product.loopDelayMs.max)} ms (pusher-js clients; longest garbage-collection pause ${ms(product.gcMs.max)} ms, ${ms(product.gcMs.total)} ms in all) and p99 ${ms(bare.loopDelayMs.p99)} ms, at most ${ms(bare.loopDelayMs.max)} ms (bare clients; ${ms(bare.gcMs.max)} ms, ${ms(bare.gcMs.total)} ms).

**Where the time goes.** Before the first client: the PUT itself (answered after ${ms(ours.answeredP50)} ms, p50; first client ${ms(ours.firstP50)} ms), then the \`pusher\` library's request to the product's own events API. After it: the send loop to ${clients.toLocaleString('en')} sockets, the same \`ws\` \`send\` per socket as the bare server's (${ms(data.bareLoopP50Ms)} ms there), and the load process going through ${clients.toLocaleString('en')} receipts on one core: first to last client ${ms(ours.spreadP50)} ms (p50) with pusher-js, ${ms(ref.spreadP50)} ms with bare \`ws\` listeners. A profiled run (\`BENCH_CPU_PROF=<dir> BENCH_LOAD_CPU_PROF=<dir>\`, then \`npx tsx bench/lib/profile-window.ts <dir>/window.json <profile>\`; 2026-11-25, same machine) put per change about 16 ms of the product's main thread in the embedded endpoint's send loop (12 ms of it in the kernel's \`writev\`, one per socket, as in the bare server), about 10 ms in the PUT (PGlite's WebAssembly about 5 ms, query building, Fastify, the session), about 1.5 ms in the \`pusher\` library's trigger and the events API's signature check; and in the load process about 23 ms of pusher-js (frame decoding, its event dispatch, 23 µs per event) against about 7 ms for the bare listeners. So the product's extra time is the status change's database work before anything is published, and pusher-js's own work when 1,000 clients share one core (a browser runs one); the fan-out itself costs what the bare broadcast costs.
`;
}
