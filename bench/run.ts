/**
 * `npm run bench [-- <name> …]`: runs the benchmarks one after the other (all of them, or the
 * ones named), each in a process of its own, and records the run (date, machine, command, load
 * average) in bench/results/latest.json; each benchmark writes its own section of
 * docs/benchmarks.md, and the side-by-side ones their row of the summary table.
 * `npm run bench -- --list` lists the names.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { machine, readLatest, writeLatest } from './lib/results';

/** Every benchmark: its name and script (relative to bench/), side-by-side ones first. */
export const BENCHMARKS: ReadonlyArray<{ name: string; script: string; what: string }> = [
  {
    name: 'engine-capacity',
    script: 'capacity/run.ts',
    what: 'engine CPU per leg and legs/core at two pass lines vs Janus AudioBridge, interleaved',
  },
  {
    name: 'call-setup',
    script: 'webrtc/call-setup-floor.ts',
    what: 'console Accept → first lead audio vs two RTCPeerConnections',
  },
  {
    name: 'incoming-lead',
    script: 'console/incoming-lead.ts',
    what: 'POST /api/v1/leads → "Incoming Lead!", PGlite and PostgreSQL, 1 and 3 instances, vs a bare push',
  },
  {
    name: 'mouth-to-ear',
    script: 'webrtc/mouth-to-ear.ts',
    what: 'agent A → agent B through the engine vs peer to peer',
  },
  {
    name: 'api',
    script: 'api/autocannon.ts',
    what: 'GET /api/v1/user and users/paginated (autocannon) vs bare Fastify',
  },
  {
    name: 'app-load',
    script: 'console/app-load.ts',
    what: 'login page interactive vs a Vite React hello world',
  },
  {
    name: 'bundle-size',
    script: 'bundle/bundle-size.ts',
    what: 'SDK and console bundle sizes vs the official SDK',
  },
  {
    name: 'sdk-call-setup',
    script: 'sdk/call-setup.ts',
    what: 'call setup with our SDK vs @twilio/voice-sdk',
  },
  {
    name: 'api-latency',
    script: 'api/api-latency.ts',
    what: 'in-process API latency with 10,000 users, PGlite and PostgreSQL',
  },
  {
    name: 'floor',
    script: 'floor/floor.ts',
    what: 'GET /api/v1/floor with 500 agents and 100,000 calls today, PGlite and PostgreSQL',
  },
  {
    name: 'engine-pacing',
    script: 'engine/run.ts',
    what: 'engine frame pacing for 25–200 legs, and under API load',
  },
  {
    name: 'routing',
    script: 'routing/run.ts',
    what: '100 leads to 50 agents on PGlite and PostgreSQL, 1 and 3 instances, vs a bare push',
  },
  {
    name: 'realtime',
    script: 'realtime/run.ts',
    what: '1,000 pusher-js clients vs a bare ws broadcast',
  },
];

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

function runOne(script: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(tsx, [script], { cwd: benchDir, stdio: 'inherit' });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const args = process.argv.slice(2);
if (args.includes('--list')) {
  for (const b of BENCHMARKS) console.log(`${b.name.padEnd(16)} ${b.what}`);
  process.exit(0);
}
const unknown = args.filter((name) => !BENCHMARKS.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(
    `Unknown benchmark ${unknown.join(', ')}; one of: ${BENCHMARKS.map((b) => b.name).join(', ')}`,
  );
  process.exit(2);
}
const chosen = args.length > 0 ? BENCHMARKS.filter((b) => args.includes(b.name)) : BENCHMARKS;

const latest = readLatest();
latest.run = {
  command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`,
  benchmarks: chosen.map((b) => b.name),
  startedAt: new Date().toISOString(),
  machine: machine(),
  loadAverage: { start: loadavg() },
};
writeLatest(latest);

const failed: string[] = [];
for (const b of chosen) {
  console.log(`\n== bench ${b.name}: ${b.what} (bench/${b.script})`);
  const started = Date.now();
  const code = await runOne(b.script);
  console.log(
    `== bench ${b.name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (code !== 0) failed.push(b.name);
}

// Re-read: each benchmark recorded its row in the file meanwhile.
const after = readLatest();
after.run = { ...latest.run, finishedAt: new Date().toISOString(), failed };
after.run.loadAverage.end = loadavg();
writeLatest(after);
if (failed.length > 0) {
  console.error(`Failed: ${failed.join(', ')}`);
  process.exit(1);
}
