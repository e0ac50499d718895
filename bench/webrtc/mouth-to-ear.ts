/**
 * Mouth-to-ear delay through the engine's conference next to a direct peer-to-peer call
 * (`npx tsx bench/webrtc/mouth-to-ear.ts`, `npm run bench -- mouth-to-ear`).
 *
 * The fake microphone of Chromium plays tone bursts (1 kHz, 200 ms, then 800 ms of silence,
 * looped). Agent A's page times the onsets of its own microphone track, agent B's page the
 * onsets it receives (page-probes.ts: an AudioWorklet finds the first sample above −40 dBFS
 * after 300 ms below, on the audio clock, mapped to the page's clock); pages of one browser share
 * that clock (`performance.timeOrigin + performance.now()`). Each received onset is matched to
 * the latest microphone onset of A before it, within one period; the difference is the
 * mouth-to-ear delay from A's microphone track to B's remote track, as Web Audio sees both.
 *
 * Ours: A and B are softphone pages (our SDK) on the embedded engine (e2e/support/
 * engine-harness.ts: a `VoiceEngine` over real werift legs in media workers), both rung into one
 * call and accepted: a conference room of two, whose audio goes through the engine's jitter
 * buffer and mixer. B is muted, so A hears nothing that its echo canceller could confuse with
 * its own bursts. Floor: two more pages in the same browser, A's microphone track sent straight
 * to B by an RTCPeerConnection (signalling through page.evaluate). The two alternate in windows
 * (the other one muted), so load drifts hit both; onsets within 50 ms of a switch are left out.
 * Writes its section of docs/benchmarks.md and its row of the summary.
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { generateTone, writeWavFile } from '@leadline/voice/dsp';
import { WorkerMediaEngine } from '@leadline/voice';
import { launchChromium } from '../../e2e/support/browser';
import {
  openSoftphone,
  startEngineHarness,
  type EngineHarness,
} from '../../e2e/support/engine-harness';
import { dropRow, machine, recordRow } from '../lib/results';
import { cleanUp, cleanups } from '../lib/cleanups';
import { publishSection } from '../lib/sections';
import { quantile, round } from '../lib/stats';
import {
  MIN_ONSETS,
  MOUTH_TO_EAR_TARGET_MS,
  mouthToEarFigures,
  type MouthToEarDelays,
  type MouthToEarSide,
  type MouthToEarWindow,
} from './mouth-to-ear-section';
import { installProbes, probeRecord, startStaticServer } from './page-probes';

const BURST_MS = 200;
const PERIOD_MS = 1000;
/** Windows per side, and their length: 4 × 7 s gives about 24 onsets a side. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 7000);
/** Rounds of windows run first and not counted (as the other benchmarks warm up). */
const WARMUP_ROUNDS = Number(process.env.BENCH_WARMUP_ROUNDS ?? 1);
/** Onsets of A's microphone this close after a switch are left out (a burst cut by it). */
const SWITCH_MARGIN_MS = 50;
/**
 * Below this a match is not a delay but a burst that arrived after the next one had started on
 * the microphone (more than a period late): counted, left out.
 */
const MIN_PLAUSIBLE_MS = 20;

/**
 * The harness's media engine, caught as it starts, for its workers' frame-loop figures (frames
 * skipped after a stall, lateness) window by window.
 */
const mediaEngines: WorkerMediaEngine[] = [];
const startMedia = Reflect.get<WorkerMediaEngine, 'start'>(WorkerMediaEngine.prototype, 'start');
WorkerMediaEngine.prototype.start = function (this: WorkerMediaEngine) {
  mediaEngines.push(this);
  return startMedia.call(this);
};

/** The engine's frame loop since the last call: frames skipped (all time), lateness (ms). */
async function engineLoop(): Promise<{ framesSkipped: number; lateP99: number; lateMax: number }> {
  const stats = (await Promise.all(mediaEngines.map((m) => m.stats()))).flat();
  return {
    framesSkipped: stats.reduce((sum, s) => sum + s.framesSkipped, 0),
    lateP99: Math.max(0, ...stats.map((s) => s.frameLateness.p99)),
    lateMax: Math.max(0, ...stats.map((s) => s.frameLateness.max)),
  };
}

/** The fake microphone: 1 kHz bursts of 200 ms every second, 48 kHz, 120 s (Chromium loops it). */
async function burstWav(): Promise<string> {
  const rate = 48_000;
  const samples = new Int16Array(rate * 120);
  const burst = generateTone(
    { frequencyHz: 1000, sampleRateHz: rate, dbfs: -6 },
    (rate * BURST_MS) / 1000,
  );
  for (let at = 0; at + burst.length <= samples.length; at += (rate * PERIOD_MS) / 1000)
    samples.set(burst, at);
  const path = join(mkdtempSync(join(tmpdir(), 'leadline-m2e-')), 'bursts.wav');
  await writeWavFile(path, samples, rate);
  return path;
}

/** The page's clock now (epoch ms). */
const pageNow = (page: Page) => page.evaluate(() => performance.timeOrigin + performance.now());

/** One side: its pages and how to let A's audio through to B or not. */
interface Side {
  a: Page;
  b: Page;
  /** Lets A's microphone through (true) or not; resolves with the page time of the switch. */
  send(on: boolean): Promise<number>;
}

type SdkCall = { accept(): void; mute(shouldMute?: boolean): void };
type CallsWindow = { calls: SdkCall[] };

/** Ours: A and B rung into one call on the engine and accepted; B muted. */
async function oursSide(browser: Browser, harness: EngineHarness): Promise<Side> {
  const callSid = 'CAm2ebench';
  const join = async (identity: string, mic: boolean): Promise<Page> => {
    const page = await (await browser.newContext()).newPage();
    await installProbes(page, { mic });
    await openSoftphone(page, harness, identity);
    await harness.waitFor('device.online', (e) => e.identity === identity);
    const since = harness.events.length;
    if ((await harness.engine.ringAgent(callSid, identity, {})) !== 1)
      throw new Error(`${identity} was not rung`);
    await page.waitForFunction(() => (window as unknown as CallsWindow).calls.length > 0);
    await page.evaluate(() => (window as unknown as CallsWindow).calls[0]!.accept());
    await harness.waitFor(
      'agent.answered',
      (e) => e.callSid === callSid && e.identity === identity,
      15_000,
      since,
    );
    return page;
  };
  const a = await join('agent-a', true);
  const b = await join('agent-b', false);
  await b.evaluate(() => (window as unknown as CallsWindow).calls[0]!.mute(true));
  return {
    a,
    b,
    async send(on) {
      await a.evaluate((mute) => (window as unknown as CallsWindow).calls[0]!.mute(mute), !on);
      return pageNow(a);
    },
  };
}

/**
 * The floor: A's microphone track sent straight to B by one RTCPeerConnection each; with
 * `pcmu`, B's answer allows PCMU only (the engine's codec), else the browsers pick (Opus).
 */
async function floorSide(browser: Browser, url: string, pcmu = false): Promise<Side> {
  const open = async (mic: boolean) => {
    const page = await (await browser.newContext()).newPage();
    await installProbes(page, { mic });
    await page.goto(url);
    return page;
  };
  const a = await open(true);
  const b = await open(false);
  type FloorWindow = {
    pc: RTCPeerConnection;
    track: MediaStreamTrack;
  };
  // Non-trickle: each side's description once its (loopback) candidates are gathered.
  const offer = await a.evaluate(async () => {
    const w = window as unknown as FloorWindow;
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    w.pc = new RTCPeerConnection();
    // A clone goes out, so that muting it (as our SDK mutes: `enabled = false`, the packets
    // go on carrying silence) leaves the microphone probe's track alone.
    w.track = stream.getAudioTracks()[0]!.clone();
    w.pc.addTrack(w.track, stream);
    await w.pc.setLocalDescription(await w.pc.createOffer());
    while (w.pc.iceGatheringState !== 'complete') await new Promise((r) => setTimeout(r, 10));
    return w.pc.localDescription!.toJSON();
  });
  const answer = await b.evaluate(
    async (offer) => {
      const w = window as unknown as FloorWindow;
      w.pc = new RTCPeerConnection();
      const out = document.createElement('audio');
      out.autoplay = true;
      document.body.append(out);
      w.pc.ontrack = (e) => {
        out.srcObject = e.streams[0] ?? new MediaStream([e.track]);
        void out.play();
      };
      await w.pc.setRemoteDescription(offer.offer);
      if (offer.pcmu) {
        const codecs = RTCRtpReceiver.getCapabilities('audio')!.codecs;
        w.pc
          .getTransceivers()[0]!
          .setCodecPreferences(codecs.filter((c) => c.mimeType.toLowerCase() === 'audio/pcmu'));
      }
      await w.pc.setLocalDescription(await w.pc.createAnswer());
      while (w.pc.iceGatheringState !== 'complete') await new Promise((r) => setTimeout(r, 10));
      return w.pc.localDescription!.toJSON();
    },
    { offer, pcmu },
  );
  await a.evaluate(async (answer) => {
    const w = window as unknown as FloorWindow;
    await w.pc.setRemoteDescription(answer);
    while (w.pc.connectionState !== 'connected') await new Promise((r) => setTimeout(r, 10));
  }, answer);
  return {
    a,
    b,
    async send(on) {
      await a.evaluate((on) => {
        (window as unknown as FloorWindow).track.enabled = on;
      }, on);
      return pageNow(a);
    },
  };
}

/** B's receiving figures (getStats): codec, jitter buffer, round trip. */
async function receiverStats(b: Page): Promise<Record<string, unknown>> {
  return b.evaluate(async () => {
    const out: Record<string, unknown> = {};
    const w = window as unknown as { __probePcs?: RTCPeerConnection[] };
    for (const pc of w.__probePcs ?? []) {
      const stats = await pc.getStats();
      const byId = new Map<string, Record<string, unknown>>();
      for (const s of stats.values() as IterableIterator<Record<string, unknown>>)
        byId.set(s.id as string, s);
      for (const s of byId.values()) {
        if (s.type === 'inbound-rtp' && s.kind === 'audio') {
          const emitted = Number(s.jitterBufferEmittedCount ?? 0);
          out.codec = byId.get(s.codecId as string)?.mimeType ?? null;
          out.jitterBufferMs = emitted
            ? Math.round((Number(s.jitterBufferDelay) / emitted) * 10000) / 10
            : null;
          out.jitterMs = Math.round(Number(s.jitter ?? 0) * 10000) / 10;
          out.packetsLost = s.packetsLost;
          out.concealedSamples = s.concealedSamples;
        }
        if (s.type === 'candidate-pair' && s.nominated && s.currentRoundTripTime !== undefined)
          out.rttMs = Math.round(Number(s.currentRoundTripTime) * 10000) / 10;
      }
    }
    return out;
  });
}

/** Mouth-to-ear delays of `side` from the windows it was sending in. */
async function delaysOf(side: Side, windows: Array<[number, number]>): Promise<MouthToEarDelays> {
  const mic = (await probeRecord(side.a)).onsets.filter((o) => o.kind === 'mic').map((o) => o.t);
  const heard = (await probeRecord(side.b)).onsets
    .filter((o) => o.kind === 'remote')
    .map((o) => o.t);
  const delays: number[] = [];
  const perWindow: number[][] = windows.map(() => []);
  let unmatched = 0;
  let implausible = 0;
  for (const r of heard) {
    const m = mic.filter((t) => t <= r).at(-1);
    if (m === undefined || r - m >= PERIOD_MS) {
      unmatched++;
      continue;
    }
    // Only bursts that started inside a sending window, clear of its switch.
    const w = windows.findIndex(([from, to]) => m >= from + SWITCH_MARGIN_MS && m <= to);
    if (w < 0) continue;
    if (r - m < MIN_PLAUSIBLE_MS) {
      implausible++;
      continue;
    }
    delays.push(r - m);
    perWindow[w]!.push(r - m);
  }
  return {
    delays,
    windowP50s: perWindow.map((d) => (d.length ? round(quantile(d, 0.5), 1) : null)),
    micOnsets: mic.length,
    heardOnsets: heard.length,
    unmatched,
    implausible,
  };
}

type Loop = MouthToEarWindow;
type Measured = MouthToEarSide;

const started = Date.now();
const loadAtStart = loadavg();
try {
  const [harness, pages, wav] = await Promise.all([
    startEngineHarness(),
    startStaticServer(),
    burstWav(),
  ]);
  cleanups.push(
    () => harness.close(),
    () => pages.close(),
  );
  const browser = await launchChromium(wav);
  cleanups.push(() => browser.close());
  const chromiumVersion = browser.version();
  const sides = [
    {
      name: 'ours',
      label: 'ours: A → engine conference → B',
      side: await oursSide(browser, harness),
    },
    {
      name: 'floor',
      label: 'floor: A → B direct peer to peer',
      side: await floorSide(browser, pages.url),
    },
    {
      name: 'floor-pcmu',
      label: 'floor with PCMU (diagnostic): A → B peer to peer, PCMU only',
      side: await floorSide(browser, pages.url, true),
    },
  ];
  const windows = sides.map(() => [] as Array<[number, number]>);
  for (const { side } of sides) await side.send(false);
  // Let the connections settle (jitter buffers, echo cancellers) before the first window.
  await new Promise((r) => setTimeout(r, 2000));
  // Warm-up: every side's window once, not counted (first bursts through the engine's workers
  // and each receiver's jitter buffer).
  for (let round = 0; round < WARMUP_ROUNDS; round++) {
    for (const { side } of sides) {
      await side.send(true);
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      await side.send(false);
    }
  }
  const loops: Array<Omit<Loop, 'p50'> & { window: number }> = [];
  let skippedBefore = (await engineLoop()).framesSkipped;
  const setupSkipped = skippedBefore;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { name, side }] of sides.entries()) {
      const from = await side.send(true);
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      const to = await side.send(false);
      windows[i]!.push([from, to]);
      const loop = await engineLoop();
      loops.push({
        ...loop,
        framesSkipped: loop.framesSkipped - skippedBefore,
        side: name,
        window: round,
      });
      skippedBefore = loop.framesSkipped;
    }
  }
  // The last bursts' arrival.
  await new Promise((r) => setTimeout(r, 500));
  const measured: Measured[] = [];
  for (const [i, { name, label, side }] of sides.entries()) {
    measured.push({
      name,
      label,
      delays: await delaysOf(side, windows[i]!),
      receiver: await receiverStats(side.b),
    });
  }
  await cleanUp();
  const windowLoops = loops.map(({ window, ...l }) => ({
    ...l,
    p50: measured.find((m) => m.name === l.side)!.delays.windowP50s[window] ?? null,
  }));
  report(measured, windowLoops, setupSkipped, chromiumVersion);
  console.log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  console.error(error);
  await cleanUp();
  process.exit(1);
}

function report(
  measured: Measured[],
  loops: Loop[],
  setupSkipped: number,
  chromiumVersion: string,
): void {
  const { ours, floor, floorPcmu, os, fs, ps, difference, ratio, met, missedBy } =
    mouthToEarFigures(measured);
  const o = ours.delays;
  const f = floor.delays;
  const n = Math.min(o.delays.length, f.delays.length);
  const loadAtEnd = loadavg();
  // Too few bursts timed to say anything: the section says so (with what each side heard), the
  // summary loses its row, and the run fails.
  const measuredEnough = n >= MIN_ONSETS;
  const markdown = publishSection('mouth-to-ear', {
    date: new Date().toISOString(),
    machine: machine(),
    chromiumVersion,
    loadAtStart,
    loadAtEnd,
    rounds: ROUNDS,
    windowMs: WINDOW_MS,
    warmupRounds: WARMUP_ROUNDS,
    burstMs: BURST_MS,
    periodMs: PERIOD_MS,
    minPlausibleMs: MIN_PLAUSIBLE_MS,
    sides: measured,
    windows: loops,
    setupSkipped,
  });
  if (!measuredEnough) {
    dropRow('mouth-to-ear');
    console.log(markdown);
    throw new Error(`too few onsets: ours ${o.delays.length}, floor ${f.delays.length}`);
  }
  recordRow({
    name: 'mouth-to-ear',
    title: 'mouth-to-ear',
    statistic: `p50 over ${n} onsets`,
    ours: { label: 'A → engine conference → B', value: round(os.p50, 1), unit: 'ms' },
    reference: { label: 'direct peer to peer', value: round(fs.p50, 1), unit: 'ms' },
    ratio: round(ratio, 3),
    target: `≤ floor + ${MOUTH_TO_EAR_TARGET_MS} ms`,
    met,
    ...(missedBy ? { missedBy } : {}),
    command: 'npm run bench -- mouth-to-ear',
    details: {
      chromium: chromiumVersion,
      loadAverage: { start: loadAtStart, end: loadAtEnd },
      differenceMs: round(difference, 1),
      differenceToPcmuFloorMs: round(os.p50 - ps.p50, 1),
      ours: { ...mapRound(os), onsets: o.delays.length, receiver: ours.receiver },
      floor: { ...mapRound(fs), onsets: f.delays.length, receiver: floor.receiver },
      floorPcmu: {
        ...mapRound(ps),
        onsets: floorPcmu.delays.delays.length,
        receiver: floorPcmu.receiver,
      },
      oursMs: o.delays.map((d) => round(d, 1)),
      floorMs: f.delays.map((d) => round(d, 1)),
      floorPcmuMs: floorPcmu.delays.delays.map((d) => round(d, 1)),
      windows: loops,
    },
  });
  console.log(markdown);
}

function mapRound(x: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, round(v, 1)]));
}
