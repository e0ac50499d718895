// `npm test`: the static checks, the unit and integration tests, the build and the end-to-end
// specs. The tests run one phase after another at normal priority; the checks (typechecks,
// ESLint, Prettier) run beside them at the machine's idle priority (SCHED_IDLE through `chrt`
// where it exists, and nice 19; inherited by every process they start). The tests spend much
// of their time waiting on real-time audio, rings and timers, and the checks, which read no
// clock, fill those gaps without taking a core from a test that wants one: on CI's two cores
// this takes the checks' two and a half minutes off the run (the unit phase took 364 s with
// them beside it, 376 s alone).
//
// With `TEST_POSTGRES_URL` set (CI sets it), the server's tests where PostgreSQL's behaviour can
// differ from PGlite's run a second time against that server, as the last phase (POSTGRES_PASS).
// Not beside the e2e specs: tried, the e2e phase took 13 % longer (760 s against 675 s; some
// files half as long again) and the run as a whole 25 s longer: the e2e phase is busier than
// its average suggests, and the PostgreSQL server's own work is not at idle priority.
//
// The abuse test runs in a phase of its own, on PGlite after the unit phase and on PostgreSQL
// after the PostgreSQL pass (see ALONE below).
//
// The checks' output is printed after the test phases (a failed check is reported then, not
// first, as `npm run check` alone would); the exit code is non-zero when the checks or any test
// phase failed. A failed test phase stops the phases after it, as `&&` would.
import { spawn, spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;

/** Runs `command` with the output passed through; resolves with whether it exited 0. */
function runPhase(name, command, args, env = {}) {
  return new Promise((resolve) => {
    console.log(`\n── ${name}: ${[command, ...args].join(' ')}`);
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    children.add(child);
    child.on('close', (code) => {
      children.delete(child);
      resolve(code === 0);
    });
  });
}

/**
 * The server's tests again on PostgreSQL, where its database behaviour can differ from PGlite's:
 * every endpoint through the `pg` driver (the API matrix, free text, idempotency, sessions and
 * sockets), the login throttle (its counts are upserts every instance shares), lead intake,
 * single sign-on (binding users to identities races on the unique
 * iss+sub pair, and the account's policy is JSON), the admin API (unique names and numbers,
 * audit in the same transaction, changes told to the other instances), and what needs a
 * server (several instances, the instance bus, production mode, planner statistics). The flows that only repeat the same
 * statements on the real engine (routing's offers, transfers and supervision, restart, network
 * test, Twilio flows, realtime) ran once on PGlite.
 */
const POSTGRES_PASS = [
  'src/api-matrix/cross-account',
  'src/api-matrix/endpoint-matrix',
  'src/api-matrix/fuzz.integration',
  'src/api-matrix/free-text',
  'src/api-matrix/scale',
  'src/admin',
  'src/auth/auth.integration',
  'src/auth/login-throttle',
  'src/auth/socket-access',
  'src/auth/sso',
  'src/calls/lead-call',
  'src/calls/dial-guard',
  'src/calls/floor-changes',
  'src/routing',
  'src/twilio/twilio-dial-guard',
  'src/twilio/twilio-instances',
  'src/twilio/twilio-cluster',
  'src/events',
  'src/http',
  'src/db',
  'src/relay',
  'src/cluster',
  'src/twilio/twilio-production-start',
  'src/production-start',
  'src/realtime/agent-status-realtime',
  'src/realtime/pusher-auth-bounds',
  'src/realtime/floor-changed-realtime',
  'src/floor',
  'src/reports',
  'src/users/device-presence-leadline',
];

/**
 * The abuse test (1,000 anonymous logins, single sign-on starts and socket upgrades against the
 * real product) runs in a phase of its own: its scrypt-hashed logins and the rate limits' minute
 * windows make it feed on load (the slower it goes, the more windows it spans, the more logins
 * each window lets through to hash). Alone it takes about a minute; beside the other files on
 * CI's two cores it took 220 s to over 600 s, and the login-throttle tests beside it timed out.
 */
const ALONE = 'apps/server/src/api-matrix/abuse.integration.test.ts';
/** The same file as the other phases leave it out. */
const ALONE_GLOB = '**/api-matrix/abuse.integration.test.ts';

const hasChrt = spawnSync('chrt', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Starts `args` (a Node script and its arguments) at idle priority, its output kept until it
 * ends; resolves with whether it exited 0 and what it printed.
 */
function startIdle(name, args) {
  const [command, commandArgs] = hasChrt
    ? ['chrt', ['--idle', '0', 'nice', '-n', '19', process.execPath, ...args]]
    : ['nice', ['-n', '19', process.execPath, ...args]];
  const child = spawn(command, commandArgs, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      children.delete(child);
      resolve({ name, ok: code === 0, output });
    });
  });
}

const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exit(1);
  });
}

const started = Date.now();
const background = [startIdle('static checks', ['scripts/checks.mjs'])];
let testsOk = await runPhase('unit and integration tests', 'npx', [
  'vitest',
  'run',
  '--exclude',
  ALONE_GLOB,
]);
if (!testsOk)
  console.error('\nThe unit and integration tests failed; the phases after them were not run.');
const postgres = process.env.TEST_POSTGRES_URL;
const later = [
  ['the abuse test, alone', 'npx', ['vitest', 'run', '--project', 'server', ALONE]],
  ['build', 'npm', ['run', 'build']],
  ['end-to-end specs', 'npm', ['run', 'test:e2e']],
  ...(postgres
    ? [
        [
          `server tests again on PostgreSQL (${postgres.replace(/\/\/[^@]*@/, '//…@')})`,
          'npx',
          ['vitest', 'run', '--project', 'server', '--exclude', ALONE_GLOB, ...POSTGRES_PASS],
          { DATABASE_URL: postgres },
        ],
        [
          'the abuse test again on PostgreSQL, alone',
          'npx',
          ['vitest', 'run', '--project', 'server', ALONE],
          { DATABASE_URL: postgres },
        ],
      ]
    : []),
];
for (const [name, command, args, env] of later) {
  if (!testsOk) break;
  testsOk = await runPhase(name, command, args, env);
  if (!testsOk) console.error(`\nThe ${name} failed; the phases after it were not run.`);
}
let ok = testsOk;
for (const job of await Promise.all(background)) {
  console.log(
    `\n── ${job.name} (beside the tests at idle priority): ${job.ok ? 'passed' : 'FAILED'}`,
  );
  process.stdout.write(job.output);
  ok &&= job.ok;
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nnpm test: ${ok ? 'passed' : 'FAILED'} in ${minutes} min`);
process.exit(ok ? 0 : 1);
