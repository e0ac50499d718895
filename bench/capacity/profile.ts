/**
 * Where the media workers' time goes: reads the `.cpuprofile` files a `--cpu-prof` run of the
 * engine host wrote (one per thread), keeps the media worker threads (the profiles whose code
 * includes the worker's media core) and sums, over the measurement window, their self time per
 * function and per source file (bench/lib/profile-window.ts `summarise`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarise } from '../lib/profile-window';

type Profile = Parameters<typeof summarise>[0];

export interface ProfileSummary {
  /** Media worker threads profiled. */
  threads: number;
  /** Their busy (non-idle) time in the window, ms, summed over the threads. */
  busyMs: number;
  windowMs: number;
  /** Self time per function, busiest first: `name file:line`, ms and share of busy. */
  functions: Array<{ name: string; ms: number; share: number }>;
  /** Self time per source file (or `(garbage collector)`, `(program)`), busiest first. */
  files: Array<{ name: string; ms: number; share: number }>;
}

/** Whether `profile` is a media worker thread's. */
const isMediaWorker = (profile: Profile): boolean =>
  profile.nodes.some((node) => /media\/(media-worker|media-core)\.ts/.test(node.callFrame.url));

/** The file part of a `summarise` key (`name dir/file.ts:line`), or the key for V8's own. */
function fileOf(key: string): string {
  if (key.startsWith('(')) return key.replace(/ .*$/, '');
  const location = key.slice(key.lastIndexOf(' ') + 1);
  const file = location.replace(/:\d+$/, '');
  return file === '' ? '(native)' : file;
}

/** Summarises the media workers' profiles in `dir` over [startUs, endUs] (monotonic clock). */
export function summariseMediaWorkers(
  dir: string,
  startUs: number,
  endUs: number,
  top = 15,
): ProfileSummary {
  const self = new Map<string, number>();
  let busy = 0;
  let threads = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
    if (!isMediaWorker(profile)) continue;
    threads++;
    const summary = summarise(profile, startUs, endUs);
    busy += summary.busy;
    for (const [key, us] of summary.self) self.set(key, (self.get(key) ?? 0) + us);
  }
  const files = new Map<string, number>();
  for (const [key, us] of self) files.set(fileOf(key), (files.get(fileOf(key)) ?? 0) + us);
  const rank = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return {
    threads,
    busyMs: busy / 1000,
    windowMs: (endUs - startUs) / 1000,
    functions: rank(self),
    files: rank(files),
  };
}
