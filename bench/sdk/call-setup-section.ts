/**
 * The `sdk-call-setup` section of docs/benchmarks.md (each softphone SDK's ring → first lead
 * audio), rendered from the times bench/sdk/call-setup.ts measured (stored in
 * bench/results/sections/sdk-call-setup.json). Pure: no clock, no machine, no files.
 */
import { quantile, round } from '../lib/stats';

/** What the SDK call setup benchmark measured: each SDK's calls (ms). */
export interface SdkCallSetupData {
  measuredAt: string;
  node: string;
  /** `twilio` (the reference) and `leadline`: ring → first lead audio per call, ms. */
  times: Record<string, number[]>;
}

const NAMES: Record<string, string> = {
  twilio: '`@twilio/voice-sdk` (reference)',
  leadline: '`@leadline/softphone`',
};

export function renderSdkCallSetupSection(data: SdkCallSetupData): string {
  const reference = quantile(data.times.twilio ?? [], 0.5);
  const rows = Object.entries(data.times).map(([sdk, t]) => {
    const p50 = quantile(t, 0.5);
    return `| ${NAMES[sdk] ?? sdk} | ${t.length} | ${round(p50, 0)} | ${round(quantile(t, 0.9), 0)} | ${round(Math.max(...t), 0)} | ${round(p50 / reference, 2)}× |`;
  });
  return [
    '## Call setup time with each SDK',
    '',
    `Command: \`npx tsx bench/sdk/call-setup.ts\` (run ${data.measuredAt.slice(0, 10)}, Node ${data.node}, Chromium headless). From the ring reaching the agent's page (the PStream \`invite\` message event, timed before the SDK sees it: before either SDK builds its peer connection) to the first lead audio arriving there (RMS above −40 dBFS on the remote stream); each SDK accepts the call the moment it announces it, the lead already on the line; the embedded engine over TLS on 127.0.0.1, both SDKs in one browser, calls alternating, after one warm-up call each.`,
    '',
    '| SDK | calls | p50 ms | p90 ms | max ms | p50 / official |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
