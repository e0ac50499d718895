/**
 * Summarises `.cpuprofile` files (from `--cpu-prof`) over a time window: where each thread's
 * time went between two moments of the monotonic clock (µs), self time and total time per
 * function, busiest first. For the routing bench: `BENCH_CPU_PROF=<dir> BENCH_BURST_WINDOW=<file>`,
 * then `npx tsx bench/lib/profile-window.ts <window.json> <dir>/round-1/*.cpuprofile`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self and total µs per function of `profile` for samples within [startUs, endUs]. */
export function summarise(profile: Profile, startUs: number, endUs: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let at = profile.startTime;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const next = profile.timeDeltas[i + 1] ?? 0;
    if (at < startUs || at > endUs) continue;
    const node = byId.get(profile.samples[i]!)!;
    const k = key(node);
    if (k.startsWith('(idle)')) continue;
    busy += next;
    self.set(k, (self.get(k) ?? 0) + next);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const name = key(byId.get(id)!);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + next);
    }
  }
  return { busy, self, total };
}

if (process.argv[1]?.endsWith('profile-window.ts')) {
  const [windowFile, ...files] = process.argv.slice(2);
  const { startUs, endUs } = JSON.parse(readFileSync(windowFile!, 'utf8')) as {
    startUs: number;
    endUs: number;
  };
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${(v / 1000).toFixed(1).padStart(7)} ms  ${k}`)
      .join('\n');
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const { busy, self, total } = summarise(profile, startUs, endUs);
    if (busy === 0) continue;
    console.log(
      `${file}: ${(busy / 1000).toFixed(0)} ms busy in ${((endUs - startUs) / 1000).toFixed(0)} ms`,
    );
    console.log(' self:\n' + top(self, 25));
    console.log(' total:\n' + top(total, 40));
  }
}
