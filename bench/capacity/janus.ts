/**
 * Janus, the reference of the capacity bench: installed from Debian (`apt-get install -y janus`)
 * when missing, and started with a configuration folder of its own (a temp dir) that loads only
 * the AudioBridge plugin and the WebSockets transport (on 127.0.0.1), gathers ICE candidates on
 * the loopback interface only, and runs pinned to one core like our engine host, at the nice
 * value of our engine's media threads.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canPin } from '../lib/processes';

/** Janus's nice value: that of our engine's media threads (`MEDIA_THREAD_NICE`, −10). */
export const JANUS_NICE = -10;

/**
 * Janus's static event loops (`event_loops` in janus.jcfg; `BENCH_JANUS_EVENT_LOOPS`, 1). By
 * default Janus runs an event loop thread per handle (per leg); its sample configuration says a
 * static number of loops cuts threads and context switching, to be provisioned by the CPUs
 * available: the server has one core here, so one loop (0: Janus's default, a thread per handle).
 */
const JANUS_EVENT_LOOPS = Number(process.env.BENCH_JANUS_EVENT_LOOPS ?? 1);

/**
 * How the bench's Janus configuration differs from Janus's defaults, and why: the section says
 * so beside its figures.
 */
export function janusConfigNotes(): string[] {
  return [
    'only the AudioBridge plugin and the WebSockets transport are loaded (nothing else is used)',
    'ICE gathers on the loopback interface only (`ice_enforce_list = "lo"`, as our engine announces 127.0.0.1)',
    'logging at level 3, warnings and errors (default 4: every leg would log its set-up)',
    JANUS_EVENT_LOOPS > 0
      ? `\`event_loops = ${JANUS_EVENT_LOOPS}\`: handles share ${JANUS_EVENT_LOOPS === 1 ? 'one static event loop' : `${JANUS_EVENT_LOOPS} static event loops`} instead of a thread each (the default); Janus's sample configuration recommends static loops for many handles, provisioned by the CPUs available, and the server has one core`
      : 'a thread per handle (Janus’s default event loops)',
  ];
}

/** Where Debian puts Janus's modules. */
const LIB_DIR = '/usr/lib/x86_64-linux-gnu/janus';

/** Whether `janus` is on PATH (`janus --version` prints its version but exits with 1). */
const janusInstalled = (): boolean =>
  /Janus version/.test(spawnSync('janus', ['--version'], { encoding: 'utf8' }).stdout ?? '');

/** Installs Debian's janus package if `janus` is not on PATH; throws if that fails. */
export function ensureJanus(): void {
  if (janusInstalled()) return;
  console.log('janus is not installed: apt-get install -y janus');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let result = spawnSync('apt-get', ['install', '-y', 'janus'], { stdio: 'inherit', env });
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    result = spawnSync('apt-get', ['install', '-y', 'janus'], { stdio: 'inherit', env });
  }
  if (result.status !== 0 || !janusInstalled()) throw new Error('could not install janus');
}

/** `janus --version`'s version, e.g. "1.1.2". */
export function janusVersion(): string {
  const out = spawnSync('janus', ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /Janus version: \d+ \(([^)]+)\)/.exec(out)?.[1] ?? 'unknown';
}

/**
 * A folder of `kind` modules under `dir` holding only `keep` (a link to Debian's), so Janus loads
 * nothing else and warns about nothing it skipped.
 */
function only(dir: string, kind: string, keep: string[]): string {
  const folder = join(dir, kind);
  mkdirSync(folder);
  for (const file of keep) symlinkSync(join(LIB_DIR, kind, file), join(folder, file));
  return folder;
}

/** Writes the configuration folder; returns its path. */
function writeConfig(wsPort: number, rtpPorts: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-janus-'));
  writeFileSync(
    join(dir, 'janus.jcfg'),
    `general: {
  configs_folder = "${dir}"
  plugins_folder = "${only(dir, 'plugins', ['libjanus_audiobridge.so'])}"
  transports_folder = "${only(dir, 'transports', ['libjanus_websockets.so'])}"
  events_folder = "${only(dir, 'events', [])}"
  loggers_folder = "${only(dir, 'loggers', [])}"
  debug_level = 3
  server_name = "leadline-bench"
  event_loops = ${JANUS_EVENT_LOOPS}
  session_timeout = 60
  recordings_tmp_ext = "tmp"
}
certificates: {}
media: {
  rtp_port_range = "${rtpPorts}"
}
nat: {
  ice_enforce_list = "lo"
  nice_debug = false
}
events: {
  broadcast = false
}
`,
  );
  writeFileSync(join(dir, 'janus.plugin.audiobridge.jcfg'), 'general: {\n}\n');
  writeFileSync(
    join(dir, 'janus.transport.websockets.jcfg'),
    `general: {
  json = "plain"
  ws = true
  ws_port = ${wsPort}
  ws_ip = "127.0.0.1"
  wss = false
}
admin: {
  admin_ws = false
  admin_wss = false
}
`,
  );
  return dir;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A running Janus. */
export interface RunningJanus {
  child: ChildProcess;
  url: string;
  /** Where the rooms' recordings go (inside the config folder). */
  recordingsDir: string;
  /** Its log so far (stdout and stderr). */
  log(): string;
  /** Stops it and removes its folder. */
  stop: () => Promise<void>;
}

/**
 * Starts Janus on `core` with WebSockets on `wsPort` and RTP on `rtpPorts` ("min-max");
 * resolves once its WebSockets transport answers.
 */
export async function startJanus(
  core: number,
  wsPort: number,
  rtpPorts: string,
): Promise<RunningJanus> {
  const dir = writeConfig(wsPort, rtpPorts);
  const recordingsDir = join(dir, 'recordings');
  const args = ['-F', dir, '-i', '127.0.0.1', '-r', rtpPorts, '-o'];
  const pinned = canPin ? ['taskset', '-c', String(core), 'janus', ...args] : ['janus', ...args];
  // At the nice value our engine gives its media threads (where allowed: `nice` runs it
  // unchanged otherwise), so neither server gets ahead of the other's competitors on its core.
  const command = ['nice', '-n', String(JANUS_NICE), ...pinned];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `ws://127.0.0.1:${wsPort}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`janus exited:\n${output}`);
    }
    if (await listening(wsPort)) break;
    if (i > 100) {
      await stop();
      throw new Error(`janus did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url, recordingsDir, log: () => output, stop };
}
