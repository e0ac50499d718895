/**
 * Where the product's time goes during the burst, for the routing bench (product-host.ts). The
 * bench sends the product SIGUSR2 just before the burst and again once the first wave rang; in
 * between:
 *
 * - `BENCH_SQL_STATS=<file>`: the time PGlite spends executing each statement (synchronous, on
 *   the main thread), summed by statement text, written to `<file>` (slowest first).
 * - `BENCH_BURST_PROF=<file>`: a CPU profile of the main thread (`.cpuprofile`, for Chrome
 *   DevTools or a script), without the start-up and warm-up that `--cpu-prof` would include.
 * - `BENCH_BURST_WINDOW=<file>`: when the burst began and ended, to cut the profiles that
 *   `BENCH_CPU_PROF` (`--cpu-prof`, every thread) writes to the burst.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';

/** Calls `onStart` at the first SIGUSR2, `onStop` at the second. */
function onBurst(onStart: () => void, onStop: () => void): void {
  let running = false;
  process.on('SIGUSR2', () => {
    running = !running;
    if (running) onStart();
    else onStop();
  });
}

/** Sums PGlite's execution time per statement between the two signals. */
export function probeStatements(file: string): void {
  // PGlite runs each protocol message synchronously here (not a public API; bench only).
  const proto = PGlite.prototype as unknown as {
    execProtocolRawSync: (this: unknown, message: Uint8Array) => unknown;
  };
  const execute = proto.execProtocolRawSync;
  const stats = new Map<string, { count: number; ms: number }>();
  /** Single protocol messages that ran 5 ms or longer: when (ms into the burst), how long. */
  const slow: string[] = [];
  let burstStart = 0;
  let statement = '';
  let on = false;
  proto.execProtocolRawSync = function (this: unknown, message: Uint8Array) {
    // A Parse message ('P'): length, statement name, NUL, query text, NUL.
    if (message[0] === 0x50) {
      const start = message.indexOf(0, 5) + 1;
      const end = message.indexOf(0, start);
      statement = Buffer.from(message.subarray(start, end)).toString().replace(/\s+/g, ' ');
    }
    const started = performance.now();
    try {
      return execute.call(this, message);
    } finally {
      if (on) {
        const entry = stats.get(statement) ?? { count: 0, ms: 0 };
        if (message[0] === 0x50) entry.count++;
        const took = performance.now() - started;
        entry.ms += took;
        stats.set(statement, entry);
        if (took >= 5) {
          slow.push(
            `${(started - burstStart).toFixed(0)} ms in: ${took.toFixed(1)} ms ${String.fromCharCode(message[0] ?? 0)} ${statement.slice(0, 80)}`,
          );
        }
      }
    }
  };
  onBurst(
    () => {
      stats.clear();
      slow.length = 0;
      burstStart = performance.now();
      on = true;
    },
    () => {
      on = false;
      const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms);
      const total = rows.reduce((sum, [, s]) => sum + s.ms, 0);
      writeFileSync(
        file,
        [
          `PGlite execution in the burst: ${total.toFixed(0)} ms`,
          'ms\tcount\tms each\tstatement',
          ...rows.map(
            ([text, s]) =>
              `${s.ms.toFixed(0)}\t${s.count}\t${(s.ms / Math.max(1, s.count)).toFixed(2)}\t${text.slice(0, 200)}`,
          ),
          '',
          `Protocol messages of 5 ms or more: ${slow.length}`,
          ...slow,
        ].join('\n') + '\n',
      );
    },
  );
}

/**
 * Writes when the burst began and ended (`{ startUs, endUs }`, the monotonic clock in µs that
 * `--cpu-prof` profiles use), so that the profiles of every thread can be cut to the burst.
 */
export function probeWindow(file: string): void {
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  let startUs = 0;
  onBurst(
    () => (startUs = nowUs()),
    () => writeFileSync(file, JSON.stringify({ startUs, endUs: nowUs() })),
  );
}

/** Profiles the main thread between the two signals. */
export function probeProfile(file: string): void {
  const session = new Session();
  session.connect();
  onBurst(
    () => {
      void (async () => {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      })();
    },
    () => {
      void session.post('Profiler.stop').then(({ profile }) => {
        writeFileSync(file, JSON.stringify(profile));
      });
    },
  );
}

/** CPU time (ns) of every thread of this process so far, keyed `tid name` (Linux). */
function threadRunTimes(): Map<string, number> {
  const times = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      times.set(`${tid} ${name}`, ns);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return times;
}

/**
 * `BENCH_STALLS=<file>`: the main thread's stalls during the burst. A 1 ms timer measures how
 * late each tick ran; a tick 8 ms or more late is a stall, listed with the main isolate's
 * garbage collections that overlapped it (PerformanceObserver 'gc') and the CPU time each thread
 * of the process had meanwhile (the main thread's id is the process id; the media workers are
 * the last threads started), so a stall another thread caused shows who.
 */
export function probeStalls(file: string): void {
  const gcs: Array<{ start: number; end: number; kind: number }> = [];
  const stalls: Array<{ at: number; lateMs: number; ran: string }> = [];
  let timer: NodeJS.Timeout | undefined;
  let start = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
      gcs.push({
        start: entry.startTime,
        end: entry.startTime + entry.duration,
        kind: detail?.kind ?? 0,
      });
    }
  });
  onBurst(
    () => {
      gcs.length = 0;
      stalls.length = 0;
      start = performance.now();
      observer.observe({ entryTypes: ['gc'] });
      let last = performance.now();
      let before = threadRunTimes();
      timer = setInterval(() => {
        const now = performance.now();
        const late = now - last - 1;
        const after = threadRunTimes();
        if (late >= 8) {
          // Which threads ran meanwhile (ms on a CPU, from /proc/self/task/*/schedstat).
          const ran = [...after]
            .map(([thread, ns]) => [thread, (ns - (before.get(thread) ?? ns)) / 1e6] as const)
            .filter(([, ms]) => ms >= 0.5)
            .sort((a, b) => b[1] - a[1])
            .map(([thread, ms]) => `${thread} ${ms.toFixed(1)}`)
            .join(', ');
          stalls.push({ at: last, lateMs: late, ran });
        }
        before = after;
        last = now;
      }, 1);
    },
    () => {
      clearInterval(timer);
      observer.disconnect();
      const kinds: Record<number, string> = {
        1: 'scavenge',
        2: 'minor-mc',
        4: 'mark-compact',
        8: 'incremental',
        16: 'weak',
      };
      const lines = stalls.map(({ at, lateMs, ran }) => {
        const overlapping = gcs.filter((gc) => gc.end > at && gc.start < at + lateMs + 1);
        const gcText = overlapping
          .map((gc) => `${kinds[gc.kind] ?? gc.kind} ${(gc.end - gc.start).toFixed(1)} ms`)
          .join(', ');
        return `${(at - start).toFixed(0)} ms in: ${lateMs.toFixed(1)} ms late${gcText ? `; main GC: ${gcText}` : '; no main GC'}; threads ran (ms): ${ran}`;
      });
      const gcTotal = gcs.reduce((sum, gc) => sum + gc.end - gc.start, 0);
      writeFileSync(
        file,
        [
          `main-thread GC in the burst: ${gcs.length} pauses, ${gcTotal.toFixed(0)} ms`,
          `stalls of 8 ms or more: ${stalls.length}`,
          ...lines,
        ].join('\n') + '\n',
      );
    },
  );
}
