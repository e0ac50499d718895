/**
 * The `call-setup` section of docs/benchmarks.md (a lead's ring in the console → its first
 * audio, next to the WebRTC floor) and its row of the summary, rendered from the calls
 * bench/webrtc/call-setup-floor.ts measured (stored in bench/results/sections/call-setup.json).
 * Pure: no clock, no machine, no files.
 */
import type { BenchRow, Machine } from '../lib/results';
import { quantile, round } from '../lib/stats';

/** One measured call: start → first audio, and the phases after the start (ms). */
export interface CallSetupSample {
  ms: number;
  phases: Record<string, number>;
}

/** What the call setup benchmark measured. */
export interface CallSetupData {
  measuredAt: string;
  machine: Machine;
  chromium: string;
  loadAtStart: number[];
  loadAtEnd: number[];
  agent: string;
  ours: CallSetupSample[];
  floor: CallSetupSample[];
}

export const CALL_SETUP_COMMAND = 'npm run bench -- call-setup';
const TARGET_RATIO = 2;

const stats = (samples: CallSetupSample[]) => {
  const ms = samples.map((s) => s.ms);
  return {
    p50: quantile(ms, 0.5),
    p90: quantile(ms, 0.9),
    max: Math.max(...ms),
    min: Math.min(...ms),
  };
};

const phaseP50 = (samples: CallSetupSample[], name: string): number | null => {
  const values = samples.map((s) => s.phases[name]).filter((v): v is number => v !== undefined);
  return values.length ? round(quantile(values, 0.5), 1) : null;
};

/** Per-call intervals between two phases, p50 (ms); `start` is 0. */
const interval = (samples: CallSetupSample[], from: string, to: string): number | null => {
  const at = (s: CallSetupSample, name: string) => (name === 'start' ? 0 : s.phases[name]);
  const values = samples
    .filter((s) => at(s, from) !== undefined && at(s, to) !== undefined)
    .map((s) => at(s, to)! - at(s, from)!);
  return values.length ? round(quantile(values, 0.5), 1) : null;
};

const INTERVALS: Array<[string, string, string]> = [
  ['start → ICE connected', 'start', 'ICE connected'],
  ['ICE connected → DTLS connected (the DTLS handshake)', 'ICE connected', 'DTLS connected'],
  ['DTLS connected → first RTP packet', 'DTLS connected', 'first RTP packet (from the stats)'],
  [
    'first RTP packet → first audio in the page',
    'first RTP packet (from the stats)',
    'first audio',
  ],
];

const fmt = (v: number | null): string => (v === null ? '–' : String(v));

/** The headline figures both the section and the summary row show. */
function figures(data: CallSetupData) {
  const o = stats(data.ours);
  const f = stats(data.floor);
  const ratio = o.p50 / f.p50;
  const met = ratio <= TARGET_RATIO;
  const missedBy = met
    ? undefined
    : `${round(o.p50 - TARGET_RATIO * f.p50, 0)} ms over 2× the floor (${round(ratio, 2)}×)`;
  return { o, f, ratio, met, missedBy };
}

export function renderCallSetupSection(data: CallSetupData): string {
  const { ours, floor } = data;
  const { o, f, ratio, met, missedBy } = figures(data);
  const all = [...ours, ...floor];
  const phaseNames = [...new Set(all.flatMap((s) => Object.keys(s.phases)))].sort(
    (a, b) =>
      quantile(ours.map((s) => s.phases[a] ?? Number.NaN).filter(Number.isFinite), 0.5) -
      quantile(ours.map((s) => s.phases[b] ?? Number.NaN).filter(Number.isFinite), 0.5),
  );
  const intervals = INTERVALS.map(([label, from, to]) => ({
    label,
    ours: interval(ours, from, to),
    floor: interval(floor, from, to),
  }));
  const m = data.machine;
  return [
    '## Call setup: a lead rings the console → its first audio, next to the WebRTC floor',
    '',
    `Run ${data.measuredAt.slice(0, 16).replace('T', ' ')} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Chromium ${data.chromium} headless; load average (1/5/15 min) ${data.loadAtStart.map((x) => x.toFixed(2)).join(' / ')} at the start, ${data.loadAtEnd.map((x) => x.toFixed(2)).join(' / ')} at the end. Command: \`${CALL_SETUP_COMMAND}\` (or \`npx tsx bench/webrtc/call-setup-floor.ts\`; \`BENCH_CALLS\` sets the number of calls, default 20).`,
    '',
    '**Both clocks start before any peer connection exists.** The floor’s at the click that starts its call; ours when the lead’s ring (the PStream `invite`) reaches the console’s page, timed by the message event itself before the SDK sees it: our SDK builds its peer connection when a call rings, so a clock started at Accept (as this benchmark did before) would leave that work out.',
    '',
    `**Ours**: the built product (\`apps/server/dist\`, \`VOICE_SANDBOX_ANSWER_MS=0\` so the sandbox test lead answers without a simulated ring) and ${data.agent} logged into the console in Chromium, ready. Each call: a lead is posted (\`POST /api/v1/leads\`, a sandbox test lead playing 440 Hz), the console rings 'Incoming Lead!' and its Accept button is clicked the moment it is on the page (a mutation observer in the page, so no round trip to the bench sits in between), and the page hears the lead; then Hang Up, Contacted, Done (the agent ready again). Timed in the page: from the ring to the first sample above −40 dBFS on the call's remote audio track (an AudioWorklet on every remote track, audio time mapped to the page's clock: bench/webrtc/page-probes.ts). That covers the console's ring, the SDK's peer connection and accept (getUserMedia, the answer), the server's call flow dialling the lead, ICE, DTLS-SRTP and the engine's first frames to the page.`,
    '',
    `**Floor**: a static page from a plain loopback HTTP server, same browser; on a click, getUserMedia, two RTCPeerConnections in the page (offer/answer, trickle ICE over loopback), and the first audio of the fake microphone (a steady 1 kHz tone) on pc2's remote track, found by the same probe. ${ours.length} calls each after one warm-up each, interleaved ours, floor, ours, … so that load drifts hit both.`,
    '',
    '| | calls | p50 ms | p90 ms | min ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    `| ours: ring in the console → first lead audio | ${ours.length} | **${round(o.p50, 0)}** | ${round(o.p90, 0)} | ${round(o.min, 0)} | ${round(o.max, 0)} |`,
    `| floor: click → two RTCPeerConnections in one page → first audio | ${floor.length} | ${round(f.p50, 0)} | ${round(f.p90, 0)} | ${round(f.min, 0)} | ${round(f.max, 0)} |`,
    '',
    `Ratio ours p50 / floor p50: **${round(ratio, 2)}×**; target ≤ 2×: ${met ? '**met**' : `**missed** by ${missedBy}`}.`,
    '',
    "Where the time goes, p50 of each phase in ms after the start (from the probes: the `RTCPeerConnection` that carried the first audio, its descriptions, `iceconnectionstatechange` connected, `connectionstatechange` connected = DTLS done, the first `inbound-rtp` packet seen by `getStats` polled every 5 ms once connected and taken back from the stats' own arrival times). Events are timed when the page's main thread ran their listener, so on a loaded machine they lag the network thread's figures, and an interval across the two kinds can come out negative:",
    '',
    '| phase | ours p50 ms | floor p50 ms |',
    '|---|---:|---:|',
    ...phaseNames.map(
      (name) => `| ${name} | ${fmt(phaseP50(ours, name))} | ${fmt(phaseP50(floor, name))} |`,
    ),
    '',
    "The same per call, as intervals (p50 of each call's difference):",
    '',
    '| interval | ours p50 ms | floor p50 ms |',
    '|---|---:|---:|',
    ...intervals.map((i) => `| ${i.label} | ${fmt(i.ours)} | ${fmt(i.floor)} |`),
    '',
    `Reading: the largest difference is the DTLS handshake (ICE connected → DTLS connected): ${fmt(intervals[1]!.ours)} ms with the engine's werift leg (DTLS in JavaScript, in a media worker) against ${fmt(intervals[1]!.floor)} ms Chromium to Chromium. The lead, dialled by the server once the agent took the call, is on the line by then: its first packet follows DTLS by ${fmt(intervals[2]!.ours)} ms.`,
    '',
    'Reproduce: `npm run build` once, then `npx tsx bench/webrtc/call-setup-floor.ts` on an otherwise idle machine (the row of the summary and this section are rewritten).',
  ].join('\n');
}

/** The summary row. */
export function callSetupRow(data: CallSetupData): Omit<BenchRow, 'measuredAt'> {
  const { o, f, ratio, met, missedBy } = figures(data);
  const brief = (s: ReturnType<typeof stats>) => ({
    p50: round(s.p50, 1),
    p90: round(s.p90, 1),
    min: round(s.min, 1),
    max: round(s.max, 1),
  });
  return {
    name: 'call-setup',
    title: 'call setup',
    statistic: `p50 over ${data.ours.length} calls, each from before any peer connection exists`,
    ours: { label: 'console: ring → first lead audio', value: round(o.p50, 1), unit: 'ms' },
    reference: {
      label: 'click → two RTCPeerConnections in one page → first audio',
      value: round(f.p50, 1),
      unit: 'ms',
    },
    ratio: round(ratio, 3),
    target: '≤ 2×',
    met,
    ...(missedBy ? { missedBy } : {}),
    command: CALL_SETUP_COMMAND,
    details: { chromium: data.chromium, ours: brief(o), floor: brief(f) },
  };
}
