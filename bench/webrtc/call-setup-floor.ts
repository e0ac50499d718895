/**
 * Call setup through the product next to the WebRTC floor (`npx tsx bench/webrtc/call-setup-floor.ts`,
 * `npm run bench -- call-setup`).
 *
 * Ours: the built product (`apps/server/dist/main.js`, fresh data folder, the demo seeded by
 * the server itself) and agent1 logged into the console in Chromium, ready for leads. Each call:
 * a lead is posted (`POST /api/v1/leads`, a sandbox test lead that plays 440 Hz), the console
 * rings 'Incoming Lead!', the bench clicks Accept (a Playwright click) and the page hears the lead.
 * Timed in the page's clock: from the click (a capture-phase listener on the document) to the
 * first sample of lead audio above −40 dBFS on the call's remote track (page-probes.ts). Then
 * Hang Up, Contacted, Done: the agent is ready for the next lead. The sandbox's simulated ring
 * before a test lead answers is 0 (`VOICE_SANDBOX_ANSWER_MS=0`), so what is timed is the
 * product's own work: the SDK's accept, the server's call flow dialling the lead, ICE, DTLS-SRTP
 * and the engine's first frames.
 *
 * Floor: a static page from a plain loopback HTTP server in the same browser; on a click,
 * getUserMedia, two RTCPeerConnections (offer/answer, ICE over loopback) and the first audio of
 * the microphone (a steady 1 kHz tone) on pc2's remote track, found by the same probe.
 *
 * 20 measured calls each (BENCH_CALLS), after one warm-up each, interleaved ours, floor, ours, …
 * Per-phase times (getUserMedia, descriptions, ICE connected, DTLS connected, first RTP packet)
 * are recorded for both. Writes its section of docs/benchmarks.md and its row of the summary.
 */
import { loadavg } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, toneWav } from '../../e2e/support/browser';
import { recordRow, machine } from '../lib/results';
import { startBuiltProduct } from '../lib/built-product';
import { cleanUp, cleanups } from '../lib/cleanups';
import { writeSection } from '../lib/report';
import { quantile, round } from '../lib/stats';
import { installProbes, probeRecord, startStaticServer, type ProbeRecord } from './page-probes';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const AGENT = 'agent1@example.com';
const PASSWORD = 'leadline-demo';

/** One measured call: accept click → first audio, and the phases after the click (ms). */
interface Sample {
  ms: number;
  phases: Record<string, number>;
}

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

/** Clicks `click()` and waits for the first remote audio after it; the sample. */
async function timeClick(page: Page, click: () => Promise<void>): Promise<Sample> {
  const clicksBefore = (await probeRecord(page)).clicks.length;
  await click();
  const handle = await page.waitForFunction(
    (before) => {
      const p = (window as unknown as { __probe: ProbeRecord }).__probe;
      const at = p.clicks[before];
      if (at === undefined) return false;
      const onset = p.onsets.find((o) => o.kind === 'remote' && o.t >= at);
      return onset ? { at, onset } : false;
    },
    clicksBefore,
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
  return {
    ms: onset.t - at,
    phases: { ...phasesOf(record, at, onset.pc), 'first audio': onset.t - at },
  };
}

let leadCount = 0;

/** One lead through the console: post, ring, Accept (timed), hang up, Contacted, Done. */
async function ourCall(page: Page, url: string): Promise<Sample> {
  const phone = `+155501000${String((leadCount++ % 99) + 1).padStart(2, '0')}`;
  const posted = await fetch(`${url}/api/v1/leads`, {
    method: 'POST',
    headers: { authorization: 'Bearer demo-api-key', 'content-type': 'application/json' },
    body: JSON.stringify({ fname: 'Jordan', lname: 'Miles', phone_number: phone }),
  });
  if (posted.status !== 201) throw new Error(`POST /api/v1/leads: ${posted.status}`);
  await page.getByText('Incoming Lead!').waitFor({ timeout: 20_000 });
  const sample = await timeClick(page, () =>
    page
      .getByRole('region', { name: 'Incoming call' })
      .getByRole('button', { name: /^Call/ })
      .click(),
  );
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
  const sample = await timeClick(page, () => page.click('#start'));
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
  report(ours, floor, chromiumVersion);
  console.log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  console.error(error);
  await cleanUp();
  process.exit(1);
}

function report(ours: Sample[], floor: Sample[], chromiumVersion: string): void {
  const stats = (samples: Sample[]) => {
    const ms = samples.map((s) => s.ms);
    return {
      p50: quantile(ms, 0.5),
      p90: quantile(ms, 0.9),
      max: Math.max(...ms),
      min: Math.min(...ms),
    };
  };
  const o = stats(ours);
  const f = stats(floor);
  const ratio = o.p50 / f.p50;
  const met = ratio <= 2;
  const phaseNames = [...new Set([...ours, ...floor].flatMap((s) => Object.keys(s.phases)))].sort(
    (a, b) =>
      quantile(ours.map((s) => s.phases[a] ?? Number.NaN).filter(Number.isFinite), 0.5) -
      quantile(ours.map((s) => s.phases[b] ?? Number.NaN).filter(Number.isFinite), 0.5),
  );
  const phaseP50 = (samples: Sample[], name: string) => {
    const values = samples.map((s) => s.phases[name]).filter((v): v is number => v !== undefined);
    return values.length ? round(quantile(values, 0.5), 1) : null;
  };
  /** Per-call intervals between phases, p50 (ms). */
  const interval = (samples: Sample[], from: string, to: string) => {
    const values = samples
      .filter((x) => x.phases[from] !== undefined && x.phases[to] !== undefined)
      .map((x) => x.phases[to]! - x.phases[from]!);
    return values.length ? round(quantile(values, 0.5), 1) : null;
  };
  const intervals: Array<[string, string, string]> = [
    ['click → ICE connected', 'click', 'ICE connected'],
    ['ICE connected → DTLS connected (the DTLS handshake)', 'ICE connected', 'DTLS connected'],
    ['DTLS connected → first RTP packet', 'DTLS connected', 'first RTP packet (from the stats)'],
    [
      'first RTP packet → first audio in the page',
      'first RTP packet (from the stats)',
      'first audio',
    ],
  ];
  const withClick = (samples: Sample[]) =>
    samples.map((x) => ({ ...x, phases: { ...x.phases, click: 0 } }));
  const intervalP50s = intervals.map(([label, from, to]) => ({
    label,
    ours: interval(withClick(ours), from, to),
    floor: interval(withClick(floor), from, to),
  }));
  const phases = Object.fromEntries(
    phaseNames.map((name) => [name, { ours: phaseP50(ours, name), floor: phaseP50(floor, name) }]),
  );
  const m = machine();
  const fmt = (v: number | null) => (v === null ? '–' : String(v));
  const missedBy = met
    ? undefined
    : `${round(o.p50 - 2 * f.p50, 0)} ms over 2× the floor (${round(ratio, 2)}×)`;
  const markdown = [
    '## Call setup: Accept in the console → first lead audio, next to the WebRTC floor',
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Chromium ${chromiumVersion} headless; load average (1/5/15 min) ${loadAtStart.map((x) => x.toFixed(2)).join(' / ')} at the start, ${loadavg()
      .map((x) => x.toFixed(2))
      .join(
        ' / ',
      )} at the end. Command: \`npm run bench -- call-setup\` (or \`npx tsx bench/webrtc/call-setup-floor.ts\`; \`BENCH_CALLS\` sets the number of calls, default 20).`,
    '',
    `**Ours**: the built product (\`apps/server/dist\`, \`VOICE_SANDBOX_ANSWER_MS=0\` so the sandbox test lead answers without a simulated ring) and ${AGENT} logged into the console in Chromium, ready. Each call: a lead is posted (\`POST /api/v1/leads\`, a sandbox test lead playing 440 Hz), the console rings 'Incoming Lead!', the bench clicks Accept (Playwright), and the page hears the lead; then Hang Up, Contacted, Done (the agent ready again). Timed in the page: from the click (a capture-phase listener on the document) to the first sample above −40 dBFS on the call's remote audio track (an AudioWorklet on every remote track, audio time mapped to the page's clock: bench/webrtc/page-probes.ts). That covers the SDK's accept (getUserMedia, the answer), the server's call flow dialling the lead, ICE, DTLS-SRTP and the engine's first frames to the page.`,
    '',
    `**Floor**: a static page from a plain loopback HTTP server, same browser; on a click, getUserMedia, two RTCPeerConnections in the page (offer/answer, trickle ICE over loopback), and the first audio of the fake microphone (a steady 1 kHz tone) on pc2's remote track, found by the same probe. ${CALLS} calls each after one warm-up each, interleaved ours, floor, ours, … so that load drifts hit both.`,
    '',
    '| | calls | p50 ms | p90 ms | min ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    `| ours: console Accept → first lead audio | ${ours.length} | **${round(o.p50, 0)}** | ${round(o.p90, 0)} | ${round(o.min, 0)} | ${round(o.max, 0)} |`,
    `| floor: two RTCPeerConnections in one page | ${floor.length} | ${round(f.p50, 0)} | ${round(f.p90, 0)} | ${round(f.min, 0)} | ${round(f.max, 0)} |`,
    '',
    `Ratio ours p50 / floor p50: **${round(ratio, 2)}×**; target ≤ 2×: ${met ? '**met**' : `**missed** by ${missedBy}`}.`,
    '',
    "Where the time goes, p50 of each phase in ms after the click (from the probes: the `RTCPeerConnection` that carried the first audio, its descriptions, `iceconnectionstatechange` connected, `connectionstatechange` connected = DTLS done, the first `inbound-rtp` packet seen by `getStats` polled every 5 ms once connected and taken back from the stats' own arrival times; a phase before the click is negative). Events are timed when the page's main thread ran their listener, so on a loaded machine they lag the network thread's figures, and an interval across the two kinds can come out negative):",
    '',
    '| phase | ours p50 ms | floor p50 ms |',
    '|---|---:|---:|',
    ...phaseNames.map(
      (name) => `| ${name} | ${fmt(phases[name]!.ours)} | ${fmt(phases[name]!.floor)} |`,
    ),
    '',
    "The same per call, as intervals (p50 of each call's difference):",
    '',
    '| interval | ours p50 ms | floor p50 ms |',
    '|---|---:|---:|',
    ...intervalP50s.map((i) => `| ${i.label} | ${fmt(i.ours)} | ${fmt(i.floor)} |`),
    '',
    `Reading: our SDK makes its peer connection when the console rings (the phase before the click), so at the click it takes the microphone and answers; ICE connects about as fast as the floor's. The largest difference is the DTLS handshake (ICE connected → DTLS connected): ${fmt(intervalP50s[1]!.ours)} ms with the engine's werift leg (DTLS in JavaScript, in a media worker) against ${fmt(intervalP50s[1]!.floor)} ms Chromium to Chromium. The lead, dialled by the server once the agent took the call, is on the line by then: its first packet follows DTLS by ${fmt(intervalP50s[2]!.ours)} ms.`,
    '',
    'Reproduce: `npm run build` once, then `npx tsx bench/webrtc/call-setup-floor.ts` on an otherwise idle machine (the row of the summary and this section are rewritten).',
  ].join('\n');
  writeSection('call-setup', markdown);
  recordRow({
    name: 'call-setup',
    title: 'call setup',
    statistic: `p50 over ${ours.length} calls`,
    ours: { label: 'console: Accept → first lead audio', value: round(o.p50, 1), unit: 'ms' },
    reference: { label: 'two RTCPeerConnections in one page', value: round(f.p50, 1), unit: 'ms' },
    ratio: round(ratio, 3),
    target: '≤ 2×',
    met,
    ...(missedBy ? { missedBy } : {}),
    command: 'npm run bench -- call-setup',
    details: {
      chromium: chromiumVersion,
      loadAverage: { start: loadAtStart, end: loadavg() },
      ours: {
        p50: round(o.p50, 1),
        p90: round(o.p90, 1),
        min: round(o.min, 1),
        max: round(o.max, 1),
      },
      floor: {
        p50: round(f.p50, 1),
        p90: round(f.p90, 1),
        min: round(f.min, 1),
        max: round(f.max, 1),
      },
      phasesP50: phases,
      intervalsP50: intervalP50s,
      oursMs: ours.map((s) => round(s.ms, 1)),
      floorMs: floor.map((s) => round(s.ms, 1)),
    },
  });
  console.log(markdown);
}
