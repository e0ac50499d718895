/**
 * The two systems under test, started the same way for each step of the capacity bench: pinned
 * to core 0, fresh (no state left from the step before), both recording every call. Ours is
 * bench/engine/engine-host.ts (the VoiceEngine with its WorkerMediaEngine, no database), run
 * with `--cpu-prof` when asked; the reference is Janus (janus.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, startOnCore, stopChild } from '../lib/processes';
import { startJanus } from './janus';

export type System = 'ours' | 'janus';

/** A running server: what the load generator needs to reach it. */
export interface Server {
  pid: number;
  /** Signalling URL: ours ws://…/signal, Janus ws://… */
  url: string;
  /** Ours: the engine host's http://… (`/ring`, `/stats`). */
  http?: string;
  /** Janus: where rooms record. */
  recordDir?: string;
  stop: () => Promise<void>;
}

const SERVER_CORE = 0;
/** Janus's RTP/RTCP ports (two per leg with rtcp-mux off; muxed in practice). */
const JANUS_RTP_PORTS = '30000-39999';

/** Our engine host on core 0; with `cpuProfDir`, every thread is profiled into it. */
async function startOurs(cpuProfDir?: string): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-bench-capacity-'));
  const profile = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  // `BENCH_SERVER_FLAGS`: more node flags for our engine host (e.g. `--perf-basic-prof` for perf).
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const child = startOnCore(
    SERVER_CORE,
    [...flags, ...profile, '--import', 'tsx', 'engine/engine-host.ts'],
    {
      PORT: '0',
      DATA_DIR: dataDir,
    },
  );
  const stop = async (): Promise<void> => {
    await stopChild(child, 15_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  let errors = '';
  child.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
  for await (const line of createInterface({ input: child.stdout! })) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as { ready?: boolean; port?: number };
    if (parsed.ready) {
      return {
        pid: child.pid!,
        url: `ws://127.0.0.1:${parsed.port}/signal`,
        http: `http://127.0.0.1:${parsed.port}`,
        stop,
      };
    }
  }
  await stop();
  throw new Error(`the engine host did not start: ${errors}`);
}

async function startJanusServer(): Promise<Server> {
  const janus = await startJanus(SERVER_CORE, await freePort(), JANUS_RTP_PORTS);
  mkdirSync(janus.recordingsDir, { recursive: true });
  return {
    pid: janus.child.pid!,
    url: janus.url,
    recordDir: janus.recordingsDir,
    stop: janus.stop,
  };
}

export function startServer(system: System, cpuProfDir?: string): Promise<Server> {
  return system === 'ours' ? startOurs(cpuProfDir) : startJanusServer();
}
