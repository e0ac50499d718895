/**
 * Call setup time with each softphone SDK (`npx tsx bench/sdk/call-setup.ts`, part of
 * `npm run bench`): from `call.accept()` in the agent's browser to the first audio of the lead
 * arriving there. Both SDKs run in the same Chromium against the same embedded engine over TLS
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
import { writeSection } from '../lib/report';
import { quantile, round } from '../lib/stats';

const CALLS = Number(process.env.BENCH_CALLS ?? 15);
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
  await openSoftphone(page, harness, identity, {}, sdk);
  await harness.waitFor('device.online', (e) => e.identity === identity);
  const callSid = `CAbench${sdk}${n}`;
  const since = harness.events.length;
  harness.engine.dial(callSid, '+15550100042');
  await harness.waitFor('phone.answered', (e) => e.callSid === callSid, 15_000, since);
  await harness.engine.ringAgent(callSid, identity, { From: 'client:1' });
  await page.waitForFunction(() => (window as unknown as { calls: unknown[] }).calls.length > 0);
  const ms = await page.evaluate(async () => {
    const w = window as unknown as {
      calls: Array<{ accept(): void }>;
      __remoteStreams: MediaStream[];
    };
    const acceptedAt = performance.now();
    w.calls[0]!.accept();
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
      if (performance.now() - acceptedAt > 15_000) throw new Error('no lead audio in 15 s');
      await new Promise((r) => setTimeout(r, 2));
    }
    const heardAt = performance.now();
    await context.close();
    return heardAt - acceptedAt;
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

const reference = quantile(times.get('twilio')!, 0.5);
const rows = SDKS.map((sdk) => {
  const t = times.get(sdk)!;
  const p50 = quantile(t, 0.5);
  const name = sdk === 'twilio' ? '`@twilio/voice-sdk` (reference)' : '`@leadline/softphone`';
  return `| ${name} | ${t.length} | ${round(p50, 0)} | ${round(quantile(t, 0.9), 0)} | ${round(Math.max(...t), 0)} | ${round(p50 / reference, 2)}× |`;
});
const markdown = [
  '## Call setup time with each SDK',
  '',
  `Command: \`npx tsx bench/sdk/call-setup.ts\` (run ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, Chromium headless). From \`call.accept()\` in the agent's page to the first lead audio arriving there (RMS above −40 dBFS on the remote stream), the lead already on the line; the embedded engine over TLS on 127.0.0.1, both SDKs in one browser, calls alternating, after one warm-up call each.`,
  '',
  '| SDK | calls | p50 ms | p90 ms | max ms | p50 / official |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
writeSection('sdk-call-setup', markdown);
console.log(markdown);
console.log('\nwrote the call-setup section of docs/benchmarks.md');
