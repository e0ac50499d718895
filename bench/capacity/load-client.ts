/**
 * The capacity bench's load generator (`taskset -c 1 node --import tsx capacity/load-client.ts`),
 * the same for both systems but for its signalling adapter: `CALLS` two-party calls, each two
 * werift legs (leg.ts) in one room, at most `CONCURRENCY` calls setting up at a time. Once every
 * call is up (or failed, after `SETUP_TIMEOUT_MS`) it prints `connected` and waits for SIGUSR2
 * (so several load processes measure the same window); then every leg sends a PCMU
 * frame every 20 ms, each at its own phase of the frame, and after `WARMUP_MS` the legs time the
 * server's frames for `WINDOW_MS` (pacing.ts). Output: JSON lines on stdout (`phase` lines, then
 * the `result`).
 *
 * Environment: `SYSTEM` (`ours` or `janus`), `URL` (ours: ws://…/signal; janus: ws://…),
 * `HTTP` (ours: the engine host's http://…), `CALLS`, `FIRST_CALL` (number of the first call, so
 * load processes use distinct rooms), `WARMUP_MS`, `WINDOW_MS`, `SETUP_TIMEOUT_MS`,
 * `CONCURRENCY`, `RECORD` (janus: `1` to record rooms) and `RECORD_DIR`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { disableDefaultStunServer } from '@leadline/voice/testing';
import { Leg } from './leg';
import { pacing } from '../lib/pacing';
import { OursSignalling } from './signal-ours';
import { JanusSignalling } from './signal-janus';
import type { CallSignalling } from './signalling';

const system = process.env.SYSTEM ?? 'ours';
const url = process.env.URL ?? 'ws://127.0.0.1:3000/signal';
const calls = Number(process.env.CALLS ?? 10);
const firstCall = Number(process.env.FIRST_CALL ?? 0);
const warmupMs = Number(process.env.WARMUP_MS ?? 3000);
const windowMs = Number(process.env.WINDOW_MS ?? 10_000);
const setupTimeoutMs = Number(process.env.SETUP_TIMEOUT_MS ?? 15_000);
const concurrency = Math.max(1, Number(process.env.CONCURRENCY ?? 12));

const FRAME_MS = 20;
/** The legs' sends are spread over the frame in slots of this length (see bench-client.ts). */
const SEND_SLOT_MS = 2;
const LOOP_RESOLUTION_MS = 10;

const say = (line: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function signalling(): Promise<CallSignalling> {
  if (system === 'janus')
    return JanusSignalling.connect(url, {
      record: process.env.RECORD === '1',
      recordDir: process.env.RECORD_DIR ?? '/tmp',
      timeoutMs: setupTimeoutMs,
    });
  return new OursSignalling(url, process.env.HTTP ?? 'http://127.0.0.1:3000', setupTimeoutMs);
}

/** Sets call `index` up within `setupTimeoutMs`. */
async function setUp(signal: CallSignalling, index: number, legs: [Leg, Leg]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('setup timed out')), setupTimeoutMs);
  });
  try {
    await Promise.race([signal.setUpCall(index, legs), timedOut]);
    for (const leg of legs) leg.start();
  } finally {
    clearTimeout(timer);
  }
}

disableDefaultStunServer();
const signal = await signalling();
const pairs = Array.from({ length: calls }, (_, i): [Leg, Leg] => {
  const call = firstCall + i;
  return [new Leg(`cap-${call}-a`), new Leg(`cap-${call}-b`)];
});
const legs = pairs.flat();
say({ phase: 'setup-start', at: Date.now() });
const setupStarted = performance.now();
const errors: string[] = [];
let next = 0;
const lane = async (): Promise<void> => {
  while (next < pairs.length) {
    const index = next++;
    try {
      await setUp(signal, firstCall + index, pairs[index]!);
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
};
await Promise.all(Array.from({ length: Math.min(concurrency, pairs.length) }, lane));
const upLegs = legs.filter((leg) => leg.up);
// The conductor's go (SIGUSR2), once every load process is up: listened for before `connected`.
const go = new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()));
say({
  phase: 'connected',
  legs: upLegs.length,
  failed: legs.length - upLegs.length,
  firstError: errors[0],
  errors: Object.fromEntries(
    [...new Set(errors)].map((e) => [e, errors.filter((x) => x === e).length]),
  ),
  allConnectedMs: performance.now() - setupStarted,
});

await go;

const sendingFrom = performance.now();
upLegs.forEach((leg, i) => (leg.nextSendAt = sendingFrom + (i * FRAME_MS) / upLegs.length));
const sending = setInterval(() => {
  const now = performance.now();
  for (const leg of upLegs) {
    while (leg.nextSendAt <= now) {
      leg.sendFrame();
      leg.nextSendAt += FRAME_MS;
    }
  }
}, SEND_SLOT_MS);

await sleep(warmupMs);
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loopDelay.enable();
const cpuBefore = process.cpuUsage();
const windowFrom = performance.now();
say({ phase: 'window-start', at: Date.now() });
for (const leg of upLegs) leg.recording = true;
await sleep(windowMs);
for (const leg of upLegs) leg.recording = false;
say({ phase: 'window-end', at: Date.now() });
const cpu = process.cpuUsage(cpuBefore);
const windowTook = performance.now() - windowFrom;
loopDelay.disable();
clearInterval(sending);

say({
  phase: 'result',
  legs: legs.length,
  up: upLegs.length,
  ...pacing(upLegs),
  client: {
    cpuPercent: ((cpu.user + cpu.system) / 1000 / windowTook) * 100,
    loopDelayP99Ms: Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
    loopDelayMaxMs: Math.max(0, loopDelay.max / 1e6 - LOOP_RESOLUTION_MS),
  },
});
await signal.close().catch(() => undefined);
await Promise.allSettled(legs.map((leg) => leg.close()));
process.exit(0);
