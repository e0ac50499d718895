/**
 * The first line of a browser benchmark's section: when and where it ran (machine, Chromium, the
 * load average at its start and end) and its command.
 */
import { loadavg } from 'node:os';
import { machine } from '../lib/results';

export function runLine(options: {
  name: string;
  script: string;
  chromiumVersion: string;
  loadAtStart: number[];
  startedAt: number;
}): string {
  const m = machine();
  const load = (values: number[]) => values.map((n) => n.toFixed(2)).join(' / ');
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const seconds = Math.round((Date.now() - options.startedAt) / 1000);
  return `Run ${date} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; Chromium ${options.chromiumVersion} (headless, the e2e flags of e2e/support/browser.ts); load average ${load(options.loadAtStart)} at the start, ${load(loadavg())} at the end (other work on the machine shows in every figure; the ratio is the figure to read). Command: \`npm run bench -- ${options.name}\` (alone: \`npx tsx ${options.script}\`; ${seconds} s).`;
}
