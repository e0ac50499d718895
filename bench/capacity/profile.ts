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
  /** Self time by kind of work (categoryOf), busiest first. */
  categories: Array<{ name: string; ms: number; share: number }>;
  /** The process's other JavaScript threads (the main thread): busy ms, busiest files. */
  others: {
    threads: number;
    busyMs: number;
    files: Array<{ name: string; ms: number; share: number }>;
  };
}

/** Whether `profile` is a media worker thread's. */
const isMediaWorker = (profile: Profile): boolean =>
  profile.nodes.some((node) => /media\/(media-worker|media-core)\.ts/.test(node.callFrame.url));

/**
 * The file of a `summarise` key (`name dir/file:line`, the URL's last two segments), with its
 * npm package where it is one (`werift lib/index.mjs`), or V8's own entries (`(garbage
 * collector)`, `(program)`) and `(native)` for code without a URL.
 */
function fileOf(key: string, packages: Map<string, string>): string {
  const file = key.slice(key.lastIndexOf(' ') + 1).replace(/:-?\d+$/, '');
  if (file !== '') return packages.has(file) ? `${packages.get(file)} ${file}` : file;
  return /^\((garbage collector|program|idle)\)/.test(key)
    ? key.replace(/ :-?\d+$/, '')
    : '(native)';
}

/** Kinds of work, by the file a function's self time is in (first match wins). */
const CATEGORIES: Array<[string, RegExp]> = [
  ['SRTP, RTP and ICE (werift, node:crypto)', /^werift |^crypto\/|^node:crypto/],
  ['UDP sockets and buffers (node:dgram, Buffer)', /^node:dgram|buffer$|^node:internal\/buffer/],
  [
    'mixing, codec, jitter buffer, recording (media/room, mixer, codec/)',
    /^media\/(room|mixer|jitter-buffer)|^codec\/|wav/,
  ],
  ['legs and the frame loop (media/webrtc-leg, frame-pacer, media-core, worker)', /^media\//],
  ['garbage collection', /^\(garbage collector\)/],
  ['timers and promises (node:timers, task queues)', /timers|task_queues|promise/],
];

/** The kind of work of a file (`fileOf`). */
const categoryOf = (file: string): string =>
  CATEGORIES.find(([, pattern]) => pattern.test(file))?.[0] ?? 'other (V8, native, Node internals)';

/** The npm package of each short file name (`dir/file`) of `profile` that is in one. */
function packagesOf(profile: Profile, into: Map<string, string>): void {
  for (const { callFrame } of profile.nodes) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(callFrame.url);
    if (match) into.set(callFrame.url.split('/').slice(-2).join('/'), match[1]!);
  }
}

/** Self time of `profiles` over [startUs, endUs], summed: per function and per file. */
function summariseThreads(
  profiles: Profile[],
  startUs: number,
  endUs: number,
  top: number,
): Omit<ProfileSummary, 'others'> {
  const self = new Map<string, number>();
  const packages = new Map<string, string>();
  let busy = 0;
  for (const profile of profiles) {
    packagesOf(profile, packages);
    const summary = summarise(profile, startUs, endUs);
    busy += summary.busy;
    for (const [key, us] of summary.self) self.set(key, (self.get(key) ?? 0) + us);
  }
  const files = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [key, us] of self) {
    const file = fileOf(key, packages);
    files.set(file, (files.get(file) ?? 0) + us);
    const named = packages.has(file.replace(/^\S+ /, ''))
      ? key.replace(/ (?=[^ ]*$)/, ` ${file.split(' ')[0]} `)
      : key;
    functions.set(named, us);
  }
  const categories = new Map<string, number>();
  for (const [file, us] of files)
    categories.set(categoryOf(file), (categories.get(categoryOf(file)) ?? 0) + us);
  const rank = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return {
    threads: profiles.length,
    busyMs: busy / 1000,
    windowMs: (endUs - startUs) / 1000,
    functions: rank(functions),
    files: rank(files),
    categories: rank(categories),
  };
}

/**
 * Summarises the profiles in `dir` over [startUs, endUs] (monotonic clock): the media worker
 * threads in detail, the process's other JavaScript threads (its main thread) by file.
 */
export function summariseMediaWorkers(
  dir: string,
  startUs: number,
  endUs: number,
  top = 15,
): ProfileSummary {
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile);
  const others = summariseThreads(
    profiles.filter((p) => !isMediaWorker(p)),
    startUs,
    endUs,
    5,
  );
  return {
    ...summariseThreads(profiles.filter(isMediaWorker), startUs, endUs, top),
    others: { threads: others.threads, busyMs: others.busyMs, files: others.files },
  };
}
