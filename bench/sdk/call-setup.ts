/**
 * Call setup time with each softphone SDK (`npx tsx bench/sdk/call-setup.ts`, part of
 * `npm run bench`): from the ring reaching the agent's page (the PStream invite's message event,
 * before either SDK builds its peer connection) to the first audio of the lead arriving there;
 * each SDK accepts the call as soon as it announces it (`incoming`). Both SDKs run in the same Chromium against the same embedded engine over TLS
 * (the official SDK only speaks `wss://`), alternating call by call so load drifts hit both
 * alike. The official `@twilio/voice-sdk` is the reference. Writes its section of
 * docs/benchmarks.md.
 *
 * The lead (a sandbox test number playing 440 Hz) is dialled into the call before the agent is
 * rung, so what is timed is the SDK's part: getUserMedia, the answer, ICE, DTLS-SRTP, the first
 * RTP packets decoded and played.
 */
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, captureRemoteAudio, toneWav } from '../../e2e/support/browser';
import {
  openSoftphone,
  startEngineHarness,
  type HarnessSdk,
} from '../../e2e/support/engine-harness';
import { publishSection } from '../lib/sections';
import { round } from '../lib/stats';
import type { SdkCallSetupData } from './call-setup-section';

const CALLS = Number(process.env.BENCH_CALLS ?? 15);
const started = Date.now();
const SDKS: HarnessSdk[] = ['twilio', 'leadline'];

const harness = await startEngineHarness({ tls: true, answerDelayMs: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  args: [
    ...CHROMIUM_ARGS,
    `--use-file-for-fake-audio-capture=${await toneWav(1000, 30)}`,
    '--ignore-certificate-errors',
  ],
});

/** Rings the device, accepts in the page, and resolves with accept → first lead audio (ms). */
async function oneCall(sdk: HarnessSdk, n: number): Promise<number> {
  const identity = `${sdk}-bench-${n}`;
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  // tsx keeps function names with a `__name` helper that page functions then lack.
  await page.addInitScript('window.__name = (f) => f;');
  await captureRemoteAudio(page);
  // The ring's time: its WebSocket message event's, seen before the SDK's own handler.
  await page.addInitScript(() => {
    const w = window as unknown as { __invites: number[] };
    w.__invites = [];
    const Original = window.WebSocket;
    window.WebSocket = class extends Original {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener('message', (event: MessageEvent) => {
          if (typeof event.data === 'string' && event.data.includes('"type":"invite"'))
            w.__invites.push(event.timeStamp);
        });
      }
    };
  });
  await openSoftphone(page, harness, identity, {}, sdk);
  await harness.waitFor('device.online', (e) => e.identity === identity);
  // Each SDK accepts the moment it announces the call (the page keeps them in window.calls).
  await page.evaluate(() => {
    const calls = (window as unknown as { calls: Array<{ accept(): void }> }).calls;
    const push = calls.push.bind(calls);
    calls.push = (...added) => {
      for (const call of added) call.accept();
      return push(...added);
    };
  });
  const callSid = `CAbench${sdk}${n}`;
  const since = harness.events.length;
  harness.engine.dial(callSid, '+15550100042');
  await harness.waitFor('phone.answered', (e) => e.callSid === callSid, 15_000, since);
  await harness.engine.ringAgent(callSid, identity, { From: 'client:1' });
  await page.waitForFunction(() => (window as unknown as { calls: unknown[] }).calls.length > 0);
  const ms = await page.evaluate(async () => {
    const w = window as unknown as { __invites: number[]; __remoteStreams: MediaStream[] };
    const rungAt = w.__invites.at(-1)!;
    // Wait for the remote stream, then for the first non-silent audio in it.
    while (w.__remoteStreams.length === 0) await new Promise((r) => setTimeout(r, 2));
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 256;
    context.createMediaStreamSource(w.__remoteStreams.at(-1)!).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    for (;;) {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const v of samples) sum += v * v;
      if (Math.sqrt(sum / samples.length) > 0.01) break;
      if (performance.now() - rungAt > 15_000) throw new Error('no lead audio in 15 s');
      await new Promise((r) => setTimeout(r, 2));
    }
    const heardAt = performance.now();
    await context.close();
    return heardAt - rungAt;
  });
  harness.engine.hangup(callSid);
  await context.close();
  return ms;
}

const times = new Map<HarnessSdk, number[]>(SDKS.map((sdk) => [sdk, []]));
// One warm-up call each (bundles parsed, certificate cached), then alternate.
for (const sdk of SDKS) await oneCall(sdk, 0);
for (let n = 1; n <= CALLS; n++) {
  for (const sdk of SDKS) times.get(sdk)!.push(await oneCall(sdk, n));
}
await browser.close();
await harness.close();

const data: SdkCallSetupData = {
  measuredAt: new Date(started).toISOString(),
  node: process.version,
  times: Object.fromEntries(SDKS.map((sdk) => [sdk, times.get(sdk)!.map((ms) => round(ms, 1))])),
};
console.log(publishSection('sdk-call-setup', data));
console.log('\nwrote the sdk-call-setup section of docs/benchmarks.md');
