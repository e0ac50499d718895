/**
 * Where the product's time goes during the burst, for the routing bench (product-host.ts). The
 * bench sends the product SIGUSR2 just before the burst and again once the first wave rang; in
 * between:
 *
 * - `BENCH_SQL_STATS=<file>`: the time PGlite spends executing each statement (synchronous, on
 *   the main thread), summed by statement text, written to `<file>` (slowest first).
 * - `BENCH_BURST_PROF=<file>`: a CPU profile of the main thread (`.cpuprofile`, for Chrome
 *   DevTools or a script), without the start-up and warm-up that `--cpu-prof` would include.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
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
