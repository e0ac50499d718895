/**
 * The product as the browser benchmarks run it: the built server (`node apps/server/dist/main.js`, as
 * `npm start` runs it, serving the built console from apps/web/dist; `SERVER_DIST` and
 * `WEB_DIST_DIR` name a private build instead, as for the e2e specs) in a child process on a free
 * loopback port with a fresh data folder (it migrates and seeds the demo on its first start),
 * stopped with SIGTERM (SIGKILL after 10 s) and its folder removed; and `killOnExit`, so that
 * no server a benchmark started outlives it, even when it dies of an uncaught error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, freePort } from './processes';
import { ONE_ADDRESS_LOAD } from './one-address-load';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface BuiltProduct {
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** The built server's entry: `apps/server/$SERVER_DIST/main.js` (default `dist`). */
export function builtServerMain(): string {
  return join(repoRoot, 'apps/server', process.env.SERVER_DIST || 'dist', 'main.js');
}

/**
 * The environment that names a private build (`SERVER_DIST=… WEB_DIST_DIR=… `), as a prefix of
 * a benchmark's command in its section; empty for the shared build.
 */
export function privateBuildPrefix(): string {
  const parts = [
    process.env.SERVER_DIST ? `SERVER_DIST=${process.env.SERVER_DIST}` : '',
    process.env.WEB_DIST_DIR ? `WEB_DIST_DIR=${process.env.WEB_DIST_DIR}` : '',
  ].filter(Boolean);
  return parts.length ? `${parts.join(' ')} ` : '';
}

/**
 * Kills `child` (SIGKILL) and runs `also` if this process exits while the child still runs (an
 * uncaught error, `process.exit` in a signal handler); returns a function that cancels it.
 */
export function killOnExit(child: ChildProcess, also?: () => void): () => void {
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    also?.();
  };
  process.once('exit', kill);
  return () => process.removeListener('exit', kill);
}

/**
 * Starts the built product (with `env` over this process's environment; pinned to `core` where
 * the machine allows it) and resolves once `/healthz` answers 200.
 */
export async function startBuiltProduct(
  env: Record<string, string> = {},
  options: { core?: number } = {},
): Promise<BuiltProduct> {
  const main = builtServerMain();
  const index = join(process.env.WEB_DIST_DIR ?? join(repoRoot, 'apps/web/dist'), 'index.html');
  if (!existsSync(main) || !existsSync(index)) {
    throw new Error(`The product is not built (${main}, ${index}): run \`npm run build\` first.`);
  }
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-bench-console-'));
  const command =
    options.core !== undefined && canPin
      ? ['taskset', '-c', String(options.core), process.execPath, main]
      : [process.execPath, main];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      VOICE_ICE_ADDRESSES: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...ONE_ADDRESS_LOAD,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const cancelKill = killOnExit(child, () => rmSync(dataDir, { recursive: true, force: true }));
  const stop = async (): Promise<void> => {
    cancelKill();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`The product exited (${child.exitCode}):\n${output}`);
    }
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The product did not start in 120 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, output: () => output, stop };
}
