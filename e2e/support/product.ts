/**
 * Starts the built product (`apps/server/dist/main.js`, as `npm start` runs it) in a child
 * process on a free loopback port with a fresh data folder (holding a copy of the run's seeded
 * demo database), and stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { get as httpsGet } from 'node:https';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A running product. */
export interface Product {
  url: string;
  dataDir: string;
  /** What the server printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Whether `url` answers 200. Over HTTPS the product's certificate is self-signed (`TLS=self-signed`)
 * and this process only checks its own child, so the certificate is not verified here.
 */
async function answersOk(url: string): Promise<boolean> {
  if (url.startsWith('http:')) return (await fetch(url)).ok;
  return new Promise((resolve, reject) => {
    httpsGet(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on('error', reject);
  });
}

/**
 * Starts the product and waits for /healthz. With `TLS` (or `TLS_CERT`) in `env` it serves
 * HTTPS and WSS, and `url` is `https://…`.
 */
/**
 * How long the product may take to start (migrations, media workers): seconds on a quiet
 * machine, over a minute on a loaded 2-core one.
 */
const START_TIMEOUT_MS = 180_000;

export async function startProduct(env: Record<string, string> = {}): Promise<Product> {
  // SERVER_DIST: a private build beside dist/ (apps/server/build.mjs).
  const main = join(repoRoot, 'apps/server', process.env.SERVER_DIST || 'dist', 'main.js');
  if (!existsSync(main)) throw new Error('The product is not built: run `npm run build` first.');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-e2e-'));
  // The demo database made once for the run (support/seeded-database.ts), unless the spec
  // names a database of its own.
  if (env.DATABASE_URL === undefined) {
    cpSync(inject('seededPglite'), join(dataDir, 'pglite'), { recursive: true });
  }
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [main], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      VOICE_ICE_ADDRESSES: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const tls = (env.TLS !== undefined && env.TLS !== 'off') || env.TLS_CERT !== undefined;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`The product exited (${child.exitCode}):\n${output}`);
    try {
      if (await answersOk(`${url}/healthz`)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`The product did not start in ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    dataDir,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
