/**
 * The whole product in a child process, for tests that must kill it: `node --import tsx
 * apps/server/src/main.ts`, exactly what `npm start` runs but from the sources (no build; the
 * media worker threads load through tsx too, `packages/voice/src/media/media-worker-url.ts`).
 * It listens on a free loopback port (`PORT=0`); the URL is read from its log line
 * 'Leadline is ready on <url>'. Embedded mode, ICE on 127.0.0.1, a short sandbox answer delay.
 *
 * `kill()` is a crash (SIGKILL: no handler runs), `stop()` a clean stop (SIGTERM: `main.ts`
 * closes the product and exits). Starting again on the same data folder (and database) is a
 * restart.
 *
 * Headless agents (`AgentClient`) work against it through {@link ChildLeadline.agentProduct}:
 * the agent client was written for the in-process product, and uses of it only the URLs, its
 * cleanups and one question, "is this user online in the app?", which the child answers over
 * HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { LeadIntakeResponse } from '@leadline/contracts';
import { SIGNAL_PATH } from '../leadline';
import { serverRoot } from '../lib/app-root';
import { requestJson, type HttpResult } from './http-json';
import type { HttpSession } from './http-session';
import type { RealLeadline } from './real-engine';
import { agentProductOf } from './remote-agent-product';

/**
 * How long the product may take to start: migrations, the seed and the media workers, all
 * compiled by tsx; seconds on a quiet machine, a minute or more on a loaded 2-core one.
 */
export const CHILD_START_TIMEOUT_MS = 180_000;
/** How long a clean stop may take (it waits up to 5 s for recordings). */
const CHILD_STOP_TIMEOUT_MS = 60_000;
/** The line `main.ts` logs once the product listens. */
const READY = /^Leadline is ready on (\S+)$/;
/** The default ring time of the sandbox's numbers in these tests. */
const SANDBOX_ANSWER_MS = 200;

/** Options of {@link ChildLeadline.start}. */
export interface ChildLeadlineOptions {
  /** The data folder (PGlite, recordings, secrets); the same one again is a restart. */
  dataDir: string;
  /** More settings as environment variables (`DATABASE_URL` of a scratch database…). */
  env?: Record<string, string>;
  /** Default {@link CHILD_START_TIMEOUT_MS}. */
  startTimeoutMs?: number;
}

/** How the child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The product running in a child process. */
export class ChildLeadline {
  readonly #child: ChildProcess;
  readonly #output: () => string;
  readonly #cleanups: Array<() => Promise<void> | void> = [];

  private constructor(
    child: ChildProcess,
    output: () => string,
    /** Its base URL, `http://127.0.0.1:<port>`. */
    readonly url: string,
    /** Resolves when the process has exited, however. */
    readonly exited: Promise<ChildExit>,
    /** The API key of `POST /api/v1/leads` (the demo key). */
    readonly leadApiKey: string,
  ) {
    this.#child = child;
    this.#output = output;
  }

  /**
   * Starts the product on `options.dataDir` and resolves once it logged that it is ready;
   * rejects with its output if it exits or takes longer than the start timeout.
   */
  static async start(options: ChildLeadlineOptions): Promise<ChildLeadline> {
    const { child, env } = spawnProduct(options);
    let output = '';
    let pending = '';
    let readyUrl: ((url: string) => void) | undefined;
    const ready = new Promise<string>((resolve) => (readyUrl = resolve));
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const url = readyUrlIn(line);
        if (url) readyUrl?.(url);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<ChildExit>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );

    const timeoutMs = options.startTimeoutMs ?? CHILD_START_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then((url) => ({ kind: 'ready' as const, url })),
      exited.then((exit) => ({ kind: 'exited' as const, exit })),
      new Promise<{ kind: 'timeout' }>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome.kind === 'exited') {
      throw new Error(`the product exited at start (${JSON.stringify(outcome.exit)}):\n${output}`);
    }
    if (outcome.kind === 'timeout') {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`the product did not start in ${timeoutMs / 1000} s:\n${output}`);
    }
    return new ChildLeadline(
      child,
      () => output,
      outcome.url,
      exited,
      env.LEADLINE_API_KEY ?? 'demo-api-key',
    );
  }

  /** The process id. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Whether the process still runs. */
  get running(): boolean {
    // Both are set before the process's 'exit' event is emitted.
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The signalling socket's URL, `ws://127.0.0.1:<port>/signal`. */
  get signalUrl(): string {
    return `${this.url.replace(/^http/, 'ws')}${SIGNAL_PATH}`;
  }

  /** Everything the product printed (its JSON log lines), for failure messages. */
  output(): string {
    return this.#output();
  }

  /** A crash: SIGKILL, no handler runs. Resolves once the process is gone. */
  async kill(): Promise<ChildExit> {
    if (this.running) this.#child.kill('SIGKILL');
    return this.exited;
  }

  /**
   * A clean stop: SIGTERM, as a service manager sends it; `main.ts` closes the product (live
   * calls end, recordings are linked) and exits. Resolves with how it exited; a stop that
   * hangs is killed after a minute (and then exits by SIGKILL, which the test will see).
   */
  async stop(): Promise<ChildExit> {
    if (!this.running) return this.exited;
    this.#child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CHILD_STOP_TIMEOUT_MS);
    });
    await Promise.race([this.exited, hung]);
    clearTimeout(timer);
    return this.kill();
  }

  /** Posts a lead to `POST /api/v1/leads` with the demo API key, as a lead source does. */
  postLead(body: Record<string, unknown>): Promise<HttpResult<LeadIntakeResponse>> {
    return requestJson<LeadIntakeResponse>(
      'POST',
      `${this.url}/api/v1/leads`,
      { authorization: `Bearer ${this.leadApiKey}` },
      body,
    );
  }

  /** Runs `cleanup` on {@link dispose} (agents whose peers must close). */
  addCleanup(cleanup: () => Promise<void> | void): void {
    this.#cleanups.push(cleanup);
  }

  /** Runs the cleanups (last first) and kills the process if it still runs. */
  async dispose(): Promise<void> {
    for (const cleanup of this.#cleanups.splice(0).reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch(() => undefined);
    }
    await this.kill();
  }

  /**
   * This product as `AgentClient.login` sees one. The agent client uses, of the in-process
   * product, its URLs, `addCleanup`, `flows.idle()` and one query: whether the agent is online
   * in the app (`select({ online: users.isOnlineApp }).from(users).where(eq(users.id, id))`).
   * Here that query is answered by `observer`, another user of the account, from the agent list
   * (`GET /api/v1/users/paginated`), and `idle` has nothing to wait for (the query is polled).
   * Anything else the client would ask of the product fails loudly rather than guessing.
   */
  agentProduct(observer: HttpSession): RealLeadline {
    return agentProductOf(this, observer);
  }
}

/** What a start that the product refused left: how it exited and what it printed. */
export interface RefusedStart {
  exit: ChildExit;
  stdout: string;
  /** Where `main.ts` writes why it would not start, one problem a line. */
  stderr: string;
}

/**
 * Starts the product as {@link ChildLeadline.start} does and waits for it to exit by itself (a
 * start it refuses); rejects if it becomes ready instead (then stopped) or runs past the start
 * timeout.
 */
export async function runUntilRefused(options: ChildLeadlineOptions): Promise<RefusedStart> {
  const { child } = spawnProduct(options);
  let stdout = '';
  let stderr = '';
  let started: (() => void) | undefined;
  const ready = new Promise<'ready'>((resolve) => (started = () => resolve('ready')));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.split('\n').some((line) => readyUrlIn(line))) started?.();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<ChildExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.startTimeoutMs ?? CHILD_START_TIMEOUT_MS);
  });
  const outcome = await Promise.race([exited, ready, timedOut]);
  clearTimeout(timer);
  if (outcome === 'ready' || outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
    throw new Error(
      `the product was expected to refuse to start, but (${outcome}):\n${stdout}${stderr}`,
    );
  }
  return { exit: outcome, stdout, stderr };
}

/** Spawns `main.ts` from the sources with the test's settings over the defaults above. */
function spawnProduct(options: ChildLeadlineOptions) {
  const root = serverRoot();
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The test decides the database: PGlite in the data folder unless `options.env` says.
  delete env.DATABASE_URL;
  Object.assign(env, {
    LEADLINE_MODE: 'embedded',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    VOICE_ICE_ADDRESSES: '127.0.0.1',
    VOICE_SANDBOX_ANSWER_MS: String(SANDBOX_ANSWER_MS),
    LOG_LEVEL: 'info',
    // No console needed; a folder that does not exist serves none.
    WEB_DIST_DIR: join(options.dataDir, 'no-web'),
    ...options.env,
  });
  // `--import tsx` is resolved from the working folder: the repository's root has it.
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'main.ts')], {
    cwd: join(root, '..', '..'),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, env };
}

/** The URL in a 'Leadline is ready on <url>' log line (pino's JSON), if the line is that one. */
function readyUrlIn(line: string): string | undefined {
  try {
    const { msg } = JSON.parse(line) as { msg?: unknown };
    return typeof msg === 'string' ? READY.exec(msg)?.[1] : undefined;
  } catch {
    return undefined;
  }
}
