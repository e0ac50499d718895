/**
 * Child processes of the benchmarks: a Node script started on one core (`taskset`, where the
 * machine has it and two cores or more) so that server and load generator never share one, and
 * stopped as `npm start` is stopped (SIGTERM, then SIGKILL after a grace period).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const benchDir = fileURLToPath(new URL('..', import.meta.url));

/** Whether processes can be pinned to cores here. */
export const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;

/**
 * Starts `node <args>` in `bench/` on `core` (unpinned where pinning is not possible), at
 * `nice` when not 0, with `env` over this process's environment; stdout and stderr piped.
 */
export function startOnCore(
  core: number,
  args: string[],
  env: Record<string, string>,
  nice = 0,
): ChildProcess {
  const node = [process.execPath, ...args];
  const pinned = canPin ? ['taskset', '-c', String(core), ...node] : node;
  const [file, ...rest] = nice === 0 ? pinned : ['nice', '-n', String(nice), ...pinned];
  return spawn(file!, rest, {
    cwd: benchDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Stops `child` with SIGTERM, SIGKILL after `graceMs`; resolves when it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * In a host process the bench started: closes `product` on SIGTERM or SIGINT, once, and exits
 * (1 if closing failed).
 */
export function closeOnSignals(product: { close(): Promise<void> }): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    product.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('shutdown failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Clock ticks per second of /proc/<pid>/stat (100 on Linux). */
const CLK_TCK = 100;

/** Resolves with the first JSON line of `child` that has `ready`. */
export async function ready<T>(child: ChildProcess, what: string): Promise<T> {
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
  for await (const line of createInterface({ input: child.stdout! })) {
    try {
      const parsed = JSON.parse(line) as { ready?: boolean };
      if (parsed.ready) return parsed as T;
    } catch {
      // Not ours (a log line).
    }
  }
  throw new Error(`${what} did not start: ${errors}`);
}

/** The CPU time `pid` has used (all its threads), ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of /proc/pid/stat; index 11 and 12 after the name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** A TCP port free on 127.0.0.1 just now (for a server that cannot report the one it took). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
