/**
 * Call setup through the product next to the WebRTC floor (`npx tsx bench/webrtc/call-setup-floor.ts`,
 * `npm run bench -- call-setup`).
 *
 * Ours: the built product (`apps/server/dist/main.js`, fresh data folder, the demo seeded by
 * the server itself) and agent1 logged into the console in Chromium, ready for leads. Each call:
 * a lead is posted (`POST /api/v1/leads`, a sandbox test lead that plays 440 Hz), the console
 * rings 'Incoming Lead!', its Accept is clicked the moment it shows (in the page) and the page
 * hears the lead. Timed in the page's clock: from the ring (the PStream invite's message event,
 * before our SDK builds its peer connection) to the first sample of lead audio above −40 dBFS on
 * the call's remote track (page-probes.ts). Then
 * Hang Up, Contacted, Done: the agent is ready for the next lead. The sandbox's simulated ring
 * before a test lead answers is 0 (`VOICE_SANDBOX_ANSWER_MS=0`), so what is timed is the
 * product's own work: the SDK's accept, the server's call flow dialling the lead, ICE, DTLS-SRTP
 * and the engine's first frames.
 *
 * Floor: a static page from a plain loopback HTTP server in the same browser; timed from a click:
 * getUserMedia, two RTCPeerConnections (offer/answer, ICE over loopback) and the first audio of
 * the microphone (a steady 1 kHz tone) on pc2's remote track, found by the same probe.
 *
 * 20 measured calls each (BENCH_CALLS), after one warm-up each, interleaved ours, floor, ours, …
 * Per-phase times (getUserMedia, descriptions, ICE connected, DTLS connected, first RTP packet)
 * are recorded for both. Publishes its section of docs/benchmarks.md (call-setup-section.ts) and
 * its row of the summary.
 */
import { loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, toneWav } from '../../e2e/support/browser';
import { recordRow, machine } from '../lib/results';
import { startBuiltProduct } from '../lib/built-product';
import { cleanUp, cleanups } from '../lib/cleanups';
import { publishSection } from '../lib/sections';
import { round } from '../lib/stats';
import { callSetupRow, type CallSetupData, type CallSetupSample } from './call-setup-section';
import { installProbes, probeRecord, startStaticServer, type ProbeRecord } from './page-probes';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const AGENT = 'agent1@example.com';
const PASSWORD = 'leadline-demo';

type Sample = CallSetupSample;

/** A sample with its times to 0.1 ms (what the stored data keeps). */
const rounded = (s: Sample): Sample => ({
  ms: round(s.ms, 1),
  phases: Object.fromEntries(Object.entries(s.phases).map(([k, v]) => [k, round(v, 1)])),
});

/** The built product on a free loopback port, as `npm start` runs it; resolves with its URL. */
async function startProduct(): Promise<string> {
  // The sandbox's lead answers at once: its simulated ring is not the console's call setup.
  const product = await startBuiltProduct({ VOICE_SANDBOX_ANSWER_MS: '0' });
  cleanups.push(() => product.stop());
  return product.url;
}

/** The console logged in as `AGENT`, 'Waiting for lead...' with its softphone registered. */
async function openConsole(browser: Browser, url: string): Promise<Page> {
  // The probes' worklet is a blob: module, which the console's Content-Security-Policy refuses.
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  await installProbes(page);
  const registered = new Promise<void>((resolve) => {
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        if (typeof frame.payload === 'string' && frame.payload.includes('"type":"ready"'))
          resolve();
      }),
    );
  });
  await page.goto(url);
  await page.getByLabel('Email').fill(AGENT);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.getByText('Waiting for lead...').waitFor({ timeout: 30_000 });
  await registered;
  return page;
}

/** The phases of the call whose first audio is `onset`, relative to `click` (ms). */
function phasesOf(record: ProbeRecord, click: number, pc: number): Record<string, number> {
  const phases: Record<string, number> = {};
  const gum = record.gum.find((g) => g.start >= click);
  if (gum) {
    phases['getUserMedia called'] = gum.start - click;
    if (gum.end !== undefined) phases['getUserMedia resolved'] = gum.end - click;
  }
  const names: Record<string, string> = {
    created: 'peer connection created',
    'remote-set': 'remote description set',
    'local-set': 'local description set',
    'ice-connected': 'ICE connected',
    'pc-connected': 'DTLS connected',
    'first-rtp': 'first RTP packet (from the stats)',
    'first-rtp-seen': 'first RTP packet seen by getStats',
  };
  const phasesOfPc = record.pcs.find((p) => p.id === pc)?.phases ?? {};
  for (const [key, label] of Object.entries(names)) {
    if (phasesOfPc[key] !== undefined) phases[label] = phasesOfPc[key] - click;
  }
  return phases;
}

/**
 * Runs `act()` and waits for the first remote audio after the call's start: the page's next
 * click (the floor) or its next PStream invite (ours: the ring, before our SDK builds its peer
 * connection); the sample, timed from that start.
 */
async function timeFrom(
  page: Page,
  start: 'clicks' | 'invites',
  act: () => Promise<void>,
): Promise<Sample> {
  const before = (await probeRecord(page))[start].length;
  await act();
  const handle = await page.waitForFunction(
    ({ before, start }) => {
      const p = (window as unknown as { __probe: ProbeRecord }).__probe;
      const at = p[start][before];
      if (at === undefined) return false;
      const onset = p.onsets.find((o) => o.kind === 'remote' && o.t >= at);
      return onset ? { at, onset } : false;
    },
    { before, start },
    { timeout: 20_000, polling: 20 },
  );
  const { at, onset } = (await handle.jsonValue()) as {
    at: number;
    onset: ProbeRecord['onsets'][number];
  };
  // Let the probe's getStats poll find the first RTP packet before the call is hung up.
  await page
    .waitForFunction(
      (pc) =>
        (window as unknown as { __probe: ProbeRecord }).__probe.pcs.find((p) => p.id === pc)
          ?.phases['first-rtp'] !== undefined,
      onset.pc,
      { timeout: 1000, polling: 20 },
    )
    .catch(() => undefined);
  const record = await probeRecord(page);
  const click = record.clicks.find((t) => t >= at);
  return {
    ms: onset.t - at,
    phases: {
      ...phasesOf(record, at, onset.pc),
      ...(start === 'invites' && click !== undefined ? { 'Accept clicked': click - at } : {}),
      'first audio': onset.t - at,
    },
  };
}

/**
 * Clicks the console's Accept the moment it is on the page (a mutation observer in the page, so
 * no round trip to the bench sits between the ring and the click), once.
 */
function acceptOnRing(page: Page): Promise<void> {
  return page.evaluate(() => {
    const tryAccept = (): boolean => {
      const region = document.querySelector('section[aria-label="Incoming call"]');
      const button = [...(region?.querySelectorAll('button') ?? [])].find((b) =>
        b.textContent?.trim().startsWith('Call'),
      );
      if (!button || button.disabled) return false;
      button.click();
      return true;
    };
    const observer = new MutationObserver(() => {
      if (tryAccept()) observer.disconnect();
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}

let leadCount = 0;

/** One lead through the console: post, ring, Accept (timed), hang up, Contacted, Done. */
async function ourCall(page: Page, url: string): Promise<Sample> {
  const phone = `+155501000${String((leadCount++ % 99) + 1).padStart(2, '0')}`;
  await acceptOnRing(page);
  const sample = await timeFrom(page, 'invites', async () => {
    const posted = await fetch(`${url}/api/v1/leads`, {
      method: 'POST',
      headers: { authorization: 'Bearer demo-api-key', 'content-type': 'application/json' },
      body: JSON.stringify({ fname: 'Jordan', lname: 'Miles', phone_number: phone }),
    });
    if (posted.status !== 201) throw new Error(`POST /api/v1/leads: ${posted.status}`);
  });
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await page.getByRole('button', { name: /^Contacted/ }).click();
  const heading = (name: string) => page.getByRole('heading', { name, exact: true });
  await heading('Thank you!')
    .or(heading('Tags & Stages'))
    .or(heading('Send SMS'))
    .waitFor({ timeout: 10_000 });
  if (await heading('Tags & Stages').isVisible())
    await page.getByRole('button', { name: /^Skip/ }).click();
  if (await heading('Send SMS').isVisible())
    await page.getByRole('button', { name: /^Cancel/ }).click();
  const ready = page.waitForResponse(
    (r) =>
      r.request().method() === 'POST' &&
      new URL(r.url()).pathname === '/api/v1/user/wrap-up/done' &&
      r.ok(),
    { timeout: 15_000 },
  );
  await page.getByRole('button', { name: /^Done/ }).click();
  await ready;
  await page.getByText('Waiting for lead...').waitFor({ timeout: 10_000 });
  return sample;
}

/** One floor call: click Start (timed), then close both peer connections. */
async function floorCall(page: Page): Promise<Sample> {
  const sample = await timeFrom(page, 'clicks', () => page.click('#start'));
  await page.evaluate(() => (window as unknown as { floorHangUp(): void }).floorHangUp());
  return sample;
}

const started = Date.now();
const loadAtStart = loadavg();
try {
  const [url, pages, wav] = await Promise.all([
    startProduct(),
    startStaticServer(),
    toneWav(1000, 30),
  ]);
  cleanups.push(() => pages.close());
  const browser = await launchChromium(wav);
  cleanups.push(() => browser.close());
  const chromiumVersion = browser.version();
  const consolePage = await openConsole(browser, url);
  const floorPage = await (await browser.newContext()).newPage();
  await installProbes(floorPage);
  await floorPage.goto(`${pages.url}/floor.html`);

  const ours: Sample[] = [];
  const floor: Sample[] = [];
  // Warm-up: one of each (bundles parsed, worklets compiled, the engine's first leg).
  const warmOurs = await ourCall(consolePage, url);
  const warmFloor = await floorCall(floorPage);
  console.log(`warm-up: ours ${round(warmOurs.ms, 0)} ms, floor ${round(warmFloor.ms, 0)} ms`);
  for (let n = 1; n <= CALLS; n++) {
    ours.push(await ourCall(consolePage, url));
    floor.push(await floorCall(floorPage));
    console.log(
      `call ${n}/${CALLS}: ours ${round(ours.at(-1)!.ms, 1)} ms, floor ${round(floor.at(-1)!.ms, 1)} ms`,
    );
  }
  await cleanUp();
  const data: CallSetupData = {
    measuredAt: new Date(started).toISOString(),
    machine: machine(),
    chromium: chromiumVersion,
    loadAtStart: loadAtStart.map((x) => round(x, 2)),
    loadAtEnd: loadavg().map((x) => round(x, 2)),
    agent: AGENT,
    ours: ours.map(rounded),
    floor: floor.map(rounded),
  };
  console.log(publishSection('call-setup', data));
  recordRow(callSetupRow(data));
  console.log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  console.error(error);
  await cleanUp();
  process.exit(1);
}
