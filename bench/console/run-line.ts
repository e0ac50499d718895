/**
 * The first line of a browser benchmark's section: when and where it ran (machine, Chromium, the
 * load average at its start and end) and its command. Pure: the benchmark passes what it read.
 */
import type { Machine } from '../lib/results';

/** When and where a browser benchmark ran, as its section's data keeps it. */
export interface RunLineData {
  /** The benchmark's name in `npm run bench -- <name>`. */
  name: string;
  /** Its script from the repository's root. */
  script: string;
  chromiumVersion: string;
  machine: Machine;
  /** The load average (1 / 5 / 15 min) at the start and at the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  /** ISO time the section was made (the run's end). */
  date: string;
  /** How long the run took (s). */
  seconds: number;
}

/** The line, e.g. "Run 2026-11-27 16:21 UTC on 2 cores (…); … Command: …". */
export function runLine(run: RunLineData): string {
  const m = run.machine;
  const load = (values: number[]) => values.map((n) => n.toFixed(2)).join(' / ');
  const date = run.date.slice(0, 16).replace('T', ' ');
  return `Run ${date} UTC on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; Chromium ${run.chromiumVersion} (headless, the e2e flags of e2e/support/browser.ts); load average ${load(run.loadAtStart)} at the start, ${load(run.loadAtEnd)} at the end (other work on the machine shows in every figure; the ratio is the figure to read). Command: \`npm run bench -- ${run.name}\` (alone: \`npx tsx ${run.script}\`; ${run.seconds} s).`;
}
