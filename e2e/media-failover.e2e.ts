/**
 * One media leader, hot standbys (issue 38, item 3), in a browser: two instances of the built
 * product started the same way on one PostgreSQL database. agent1's console is opened on B, the
 * follower (its softphone's signalling relayed to A, the leader). A is killed (SIGKILL): B takes
 * the media lease and starts the media on its own port; the console reconnects through B by
 * itself; a lead posted to B rings agent1, who answers and hears the lead (440 Hz).
 *
 * Needs PostgreSQL (`DATABASE_URL` or `TEST_POSTGRES_URL`, which CI sets).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, type APIRequestContext, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../apps/server/src/test-support/wait-until';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../apps/server/src/test-support/persisted-database';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  remoteDominantFrequency,
  toneWav,
} from './support/browser';
import { answerButton, logInToConsole } from './support/console';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const postgresUrl = process.env.DATABASE_URL ?? process.env.TEST_POSTGRES_URL;
/** The bound: a follower leads within 10 s of the leader's death. */
const TAKEOVER_MS = 10_000;
const START_TIMEOUT_MS = 180_000;

interface Instance {
  url: string;
  child: ChildProcess;
  output: () => string;
}

let database: PersistedDatabase | undefined;
let browser: Browser;
let http: APIRequestContext;
const instances: Instance[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Health {
  media?: { role: 'leader' | 'follower'; epoch: number | null };
}

async function healthOf(url: string): Promise<Health | null> {
  try {
    const res = await fetch(`${url}/healthz`);
    return res.ok ? ((await res.json()) as Health) : null;
  } catch {
    return null;
  }
}

/** Polls `read` until it returns something (`waitUntil`, with null meaning not yet). */
const waitFor = <T>(read: () => Promise<T | null>, what: string, timeoutMs: number) =>
  waitUntil(async () => (await read()) ?? undefined, what, timeoutMs);

/** Starts the built product as every instance starts, on `database`; resolves once it answers. */
async function startInstance(): Promise<Instance> {
  const main = join(repoRoot, 'apps/server', process.env.SERVER_DIST || 'dist', 'main.js');
  if (!existsSync(main)) throw new Error('The product is not built: run `npm run build` first.');
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [main], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...database!.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'leadline-e2e-failover-')),
      VOICE_ICE_ADDRESSES: '127.0.0.1',
      TOKEN_SECRET: 'e2e-failover-token-secret-0123456789abcdef',
      PUSHER_SECRET: 'e2e-failover-pusher-secret-0123',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const instance = { url: `http://127.0.0.1:${port}`, child, output: () => output };
  instances.push(instance);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`The product exited:\n${output}`);
      return healthOf(instance.url);
    },
    `${instance.url} to start`,
    START_TIMEOUT_MS,
  );
  return instance;
}

async function stop(instance: Instance, signal: NodeJS.Signals): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

describe.runIf(postgresUrl)('the media leader dies, a follower takes over', () => {
  beforeAll(async () => {
    database = await createPersistedDatabase(
      mkdtempSync(join(tmpdir(), 'leadline-e2e-failover-db-')),
      postgresUrl,
    );
    browser = await launchChromium(await toneWav(1000));
    http = await request.newContext();
  });

  afterAll(async () => {
    await http?.dispose();
    await browser?.close();
    for (const instance of instances.reverse()) await stop(instance, 'SIGTERM');
    await database?.drop();
  });

  it('the console on the follower reconnects through it after the leader is killed, and hears the next lead', async () => {
    const a = await startInstance();
    expect((await healthOf(a.url))?.media).toEqual({ role: 'leader', epoch: 1 });
    const b = await startInstance();
    expect((await healthOf(b.url))?.media).toEqual({ role: 'follower', epoch: 1 });

    const { context, foreignRequests } = await loopbackOnlyContext(browser);
    const page = await context.newPage();
    await captureRemoteAudio(page);
    await logInToConsole(page, b.url, 'agent1@example.com');

    await stop(a, 'SIGKILL');
    await waitFor(
      async () => ((await healthOf(b.url))?.media?.role === 'leader' ? true : null),
      'B to lead',
      TAKEOVER_MS,
    );
    expect((await healthOf(b.url))?.media).toEqual({ role: 'leader', epoch: 2 });

    // The console's softphone registers again, through B, with B's engine: agent1 is online.
    const supervisor = await request.newContext();
    const login = await supervisor.post(`${b.url}/api/v1/user/login`, {
      data: { email: 'supervisor@example.com', password: 'leadline-demo' },
    });
    expect(login.ok()).toBe(true);
    await waitFor(
      async () => {
        const list = await supervisor.get(`${b.url}/api/v1/users/paginated?status=all&page=1`);
        if (!list.ok()) return null;
        const { data } = (await list.json()) as {
          data: Array<{ full_name: string; is_online_app: boolean; status: string }>;
        };
        const agent = data.find((row) => row.is_online_app && row.status === 'available');
        return agent ?? null;
      },
      'agent1’s softphone to register with the new leader',
      60_000,
    );
    await supervisor.dispose();

    const lead = await http.post(`${b.url}/api/v1/leads`, {
      headers: { authorization: 'Bearer demo-api-key' },
      data: { fname: 'Fay', lname: 'Lover', phone_number: '+15550100071' },
    });
    expect(lead.status()).toBe(201);
    await expect
      .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
      .toBe(true);
    await answerButton(page, 'Call').click();
    const heard = await waitFor(
      async () => {
        const f = await remoteDominantFrequency(page);
        return f !== null && Math.abs(f - 440) <= 20 ? f : null;
      },
      'agent1 to hear the lead (440 Hz)',
      20_000,
    );
    expect(Math.abs(heard - 440)).toBeLessThanOrEqual(20);
    await page.getByRole('button', { name: /^Hang Up/ }).click();
    expect(foreignRequests).toEqual([]);
    await context.close();
  });
});
