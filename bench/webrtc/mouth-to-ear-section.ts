/**
 * The `mouth-to-ear` section of docs/benchmarks.md (agent A → agent B through the engine, next to
 * peer to peer), rendered from the onsets bench/webrtc/mouth-to-ear.ts measured (stored in
 * bench/results/sections/mouth-to-ear.json). Pure: no clock, no machine, no files.
 */
import type { Machine } from '../lib/results';
import { quantile, round } from '../lib/stats';

/** Mouth-to-ear delays of one side, from the windows it was sending in (ms). */
export interface MouthToEarDelays {
  delays: number[];
  /** Each window's p50 (null: no onset in it). */
  windowP50s: Array<number | null>;
  micOnsets: number;
  heardOnsets: number;
  /** Heard onsets without a microphone onset within a period. */
  unmatched: number;
  /** Matched under the plausible minimum: a burst more than a period late. */
  implausible: number;
}

/** One side (ours, the floor, the PCMU floor): its delays and B's receiver at the end. */
export interface MouthToEarSide {
  name: string;
  label: string;
  delays: MouthToEarDelays;
  /** B's `getStats` figures: codec, jitter buffer, jitter, losses, RTT. */
  receiver: Record<string, unknown>;
}

/** One measured window: its side, p50, and the engine's frame loop in it. */
export interface MouthToEarWindow {
  side: string;
  p50: number | null;
  framesSkipped: number;
  lateP99: number;
  lateMax: number;
}

/** What the mouth-to-ear benchmark measured, and with which settings. */
export interface MouthToEarSectionData {
  /** ISO time the section was made (the run's end). */
  date: string;
  machine: Machine;
  chromiumVersion: string;
  /** The load average (1 / 5 / 15 min) at the start and at the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  rounds: number;
  windowMs: number;
  warmupRounds: number;
  burstMs: number;
  periodMs: number;
  minPlausibleMs: number;
  /** Ours, the floor and the PCMU floor, in that order. */
  sides: MouthToEarSide[];
  windows: MouthToEarWindow[];
  /** Frames the engine skipped before the first counted window. */
  setupSkipped: number;
}

/** p50, p90, min and max of some delays (a type, so it is also a `Record<string, number>`). */
export type DelayFigures = {
  p50: number;
  p90: number;
  min: number;
  max: number;
};

const figuresOf = (d: number[]): DelayFigures => ({
  p50: quantile(d, 0.5),
  p90: quantile(d, 0.9),
  min: Math.min(...d),
  max: Math.max(...d),
});

/** Onsets each side needs (ours and the floor) for the delays to be reported. */
export const MIN_ONSETS = 10;

/** The target (issue 40): ours at most the peer-to-peer floor + this (ms), p50 against p50. */
export const MOUTH_TO_EAR_TARGET_MS = 20;

/** The headline: each side's figures, ours against the floor, and the target. */
export function mouthToEarFigures(sides: MouthToEarSide[]) {
  const [ours, floor, floorPcmu] = sides as [MouthToEarSide, MouthToEarSide, MouthToEarSide];
  const os = figuresOf(ours.delays.delays);
  const fs = figuresOf(floor.delays.delays);
  const ps = figuresOf(floorPcmu.delays.delays);
  const difference = os.p50 - fs.p50;
  const ratio = os.p50 / fs.p50;
  const met = difference <= MOUTH_TO_EAR_TARGET_MS;
  const missedBy = met
    ? undefined
    : `${round(difference - MOUTH_TO_EAR_TARGET_MS, 1)} ms over floor + ${MOUTH_TO_EAR_TARGET_MS} ms`;
  return { ours, floor, floorPcmu, os, fs, ps, difference, ratio, met, missedBy };
}

const stat = (x: Record<string, unknown>, key: string) => {
  const value = x[key];
  return typeof value === 'number' || typeof value === 'string' ? String(value) : '–';
};

/** The section's markdown. */
export function renderMouthToEarSection(data: MouthToEarSectionData): string {
  const { machine: m, sides: measured, windows: loops } = data;
  if (measured.slice(0, 2).some((side) => side.delays.delays.length < MIN_ONSETS))
    return renderNotMeasured(data);
  const { ours, floor, floorPcmu, os, fs, ps, difference, ratio, met, missedBy } =
    mouthToEarFigures(measured);
  const row = (x: MouthToEarSide, st: DelayFigures, bold: boolean) =>
    `| ${x.label} | ${x.delays.delays.length} | ${bold ? `**${round(st.p50, 1)}**` : round(st.p50, 1)} | ${round(st.p90, 1)} | ${round(st.min, 1)} | ${round(st.max, 1)} |`;
  return [
    '## Mouth-to-ear: agent A → agent B through the engine, next to peer to peer',
    '',
    `Run ${data.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Chromium ${data.chromiumVersion} headless; load average (1/5/15 min) ${data.loadAtStart.map((x) => x.toFixed(2)).join(' / ')} at the start, ${data.loadAtEnd
      .map((x) => x.toFixed(2))
      .join(
        ' / ',
      )} at the end. Command: \`npm run bench -- mouth-to-ear\` (or \`npx tsx bench/webrtc/mouth-to-ear.ts\`; \`BENCH_ROUNDS\` and \`BENCH_WINDOW_MS\` set the windows, default ${data.rounds} × ${data.windowMs / 1000} s a side, after ${data.warmupRounds} warm-up round${data.warmupRounds === 1 ? '' : 's'} not counted, \`BENCH_WARMUP_ROUNDS\`).`,
    '',
    `The fake microphone plays 1 kHz bursts (${data.burstMs} ms on, ${data.periodMs - data.burstMs} ms off, 48 kHz). Timed: from a burst's onset on agent A's own microphone track to its onset on agent B's remote track, both found by the same AudioWorklet probe (first sample above −40 dBFS after 300 ms below, on the audio clock, mapped to the page's clock by the smallest message delay of the last second; pages of one browser share \`performance.timeOrigin + performance.now()\`; bench/webrtc/page-probes.ts). Each received onset is matched to A's latest microphone onset within one period. The method's own delays (the microphone's path into Web Audio, the remote track's into Web Audio, the clock mapping's ≤ 1 audio callback) are the same on both sides; the difference of the two p50s is the engine's part.`,
    '',
    "**Ours**: A and B are softphone pages (our SDK) on the embedded engine (`e2e/support/engine-harness.ts`: `VoiceEngine` over werift legs in media workers), both rung into one call and accepted: a two-party conference room, A → engine (decode, jitter buffer, 20 ms mixer tick, encode) → B. B is muted, so that A hears nothing its echo canceller could take for its own bursts. **Floor**: two more pages in the same browser, A's microphone track sent straight to B by an RTCPeerConnection (signalling by page.evaluate; the browsers pick Opus). A third pair, PCMU only, shows how much of the difference is the codec rather than the engine. The sides take turns in windows (the others muted the same way, the sent track disabled so that its packets carry silence: our SDK's `mute()`; the floors send a clone of the microphone track and disable it), so load drifts hit all; bursts starting within 50 ms of a switch are left out.",
    '',
    '| | onsets | p50 ms | p90 ms | min ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    row(ours, os, true),
    row(floor, fs, false),
    row(floorPcmu, ps, false),
    '',
    `Difference ours p50 − floor p50: **${round(difference, 1)} ms** (ratio ${round(ratio, 2)}×); target ≤ floor + ${MOUTH_TO_EAR_TARGET_MS} ms: ${met ? '**met**' : `**missed**, ${missedBy}`}. Against the PCMU floor: ${round(os.p50 - ps.p50, 1)} ms.`,
    '',
    `Reading: peer to peer, PCMU is ${round(Math.abs(ps.p50 - fs.p50), 1)} ms ${ps.p50 >= fs.p50 ? 'slower' : 'faster'} than Opus, so of the ${round(difference, 1)} ms the engine's own part is about ${round(os.p50 - ps.p50, 1)} ms (ours against the PCMU pair). By its design (packages/voice/src/constants.ts, media/jitter-buffer.ts) the engine holds each leg's audio in a jitter buffer and mixes on a 20 ms tick. The buffer starts playout at two 20 ms frames (\`JITTER_TARGET_FRAMES\`) and adapts: after 5 s in which the jitter never ate into its target (\`JITTER_LOWER_WINDOWS\`) it goes down a frame, to one at least (\`JITTER_MIN_TARGET_FRAMES\`), and playout running dry twice for late packets within that wait raises it a frame; on loopback it settles at one frame, so a packet plays at the first tick after it came (0 to 20 ms). A burst of late packets no longer adds delay that stays: once a leg's buffer has held more than its target plus one frame for 500 ms (\`JITTER_SETTLE_FRAMES\`), the excess is dropped, quiet frames first (below −40 dBFS, \`JITTER_QUIET_PEAK\`), and the frames of ticks the mixer skips after a stall are dropped from the incoming buffer too (\`JitterBuffer.skipFrames\`); so what is left over the PCMU pair is the wait for the tick and B's own jitter buffer, whose concealed samples (below) show the engine's packets arriving less evenly than a browser's.`,
    '',
    "B's receiver at the end (`getStats` inbound-rtp and candidate pair):",
    '',
    '| | codec | jitter buffer ms (mean) | jitter ms | packets lost | concealed samples | RTT ms |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...measured.map(
      (x) =>
        `| ${x.name} | ${stat(x.receiver, 'codec')} | ${stat(x.receiver, 'jitterBufferMs')} | ${stat(x.receiver, 'jitterMs')} | ${stat(x.receiver, 'packetsLost')} | ${stat(x.receiver, 'concealedSamples')} | ${stat(x.receiver, 'rttMs')} |`,
    ),
    '',
    "Window by window (in the order run): the p50 of each window, and the engine's frame loop in it (frames it skipped after a stall, its frames' lateness p99 and max):",
    '',
    '| window | side | p50 ms | frames skipped | late p99 ms | late max ms |',
    '|---:|---|---:|---:|---:|---:|',
    ...loops.map(
      (l, i) =>
        `| ${i + 1} | ${l.side} | ${l.p50 ?? '–'} | ${l.framesSkipped} | ${round(l.lateP99, 1)} | ${round(l.lateMax, 1)} |`,
    ),
    '',
    `Onsets on A's microphone / heard by B (of those: without a microphone onset within a period; matched under ${data.minPlausibleMs} ms, i.e. more than a period late, left out): ${measured.map((x) => `${x.name} ${x.delays.micOnsets} / ${x.delays.heardOnsets} (${x.delays.unmatched}; ${x.delays.implausible})`).join('; ')}. The engine skipped ${data.setupSkipped} frames before the first counted window (connections, settling, warm-up).`,
    '',
    'Reproduce: `npx tsx bench/webrtc/mouth-to-ear.ts` on an otherwise idle machine (no build needed: the engine runs in the bench process).',
  ].join('\n');
}

/** A run that timed too few bursts: what each side heard, and no figures. */
function renderNotMeasured(data: MouthToEarSectionData): string {
  const m = data.machine;
  return [
    '## Mouth-to-ear: agent A → agent B through the engine, next to peer to peer',
    '',
    `Run ${data.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}), Node ${m.node}, Chromium ${data.chromiumVersion} headless; load average ${data.loadAtStart.map((x) => x.toFixed(2)).join(' / ')} at the start. Command: \`npm run bench -- mouth-to-ear\`.`,
    '',
    `**Not measured in this run**: fewer than ${MIN_ONSETS} bursts could be timed on a side (${data.sides.map((s) => `${s.name} ${s.delays.delays.length}`).join(', ')}), so no delay is reported and the summary has no row. What each side's B heard over ${data.rounds} windows of ${data.windowMs / 1000} s (A's microphone played a burst every ${data.periodMs} ms):`,
    '',
    '| side | A microphone onsets | B heard onsets | timed | heard without a burst within a period | under the plausible minimum |',
    '|---|---:|---:|---:|---:|---:|',
    ...data.sides.map(
      (s) =>
        `| ${s.label} | ${s.delays.micOnsets} | ${s.delays.heardOnsets} | ${s.delays.delays.length} | ${s.delays.unmatched} | ${s.delays.implausible} |`,
    ),
  ].join('\n');
}
