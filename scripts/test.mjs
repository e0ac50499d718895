// `npm test`: the static checks, the unit and integration tests, the build and the end-to-end
// specs. The tests run one phase after another at normal priority; the checks (typechecks,
// ESLint, Prettier) run beside them at the machine's idle priority (SCHED_IDLE through `chrt`
// where it exists, and nice 19). The tests spend much of their time waiting on real-time audio,
// rings and timers (the e2e phase keeps about half of two cores busy), and the checks, which
// read no clock, fill those gaps without taking a core from a test that wants one: on CI's two
// cores this takes the checks' two and a half minutes off the run.
//
// The checks' output is printed when they end; the exit code is non-zero when the checks or any
// test phase failed. A failed test phase stops the phases after it, as `&&` would.
import { spawn, spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;

/** Runs `command` with the output passed through; resolves with whether it exited 0. */
function runPhase(name, command, args) {
  return new Promise((resolve) => {
    console.log(`\n── ${name}: ${[command, ...args].join(' ')}`);
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    children.add(child);
    child.on('close', (code) => {
      children.delete(child);
      resolve(code === 0);
    });
  });
}

/** The checks at idle priority, their output kept until they end. */
function startChecks() {
  const hasChrt = spawnSync('chrt', ['--version'], { stdio: 'ignore' }).status === 0;
  const [command, args] = hasChrt
    ? ['chrt', ['--idle', '0', process.execPath, 'scripts/checks.mjs', '--idle']]
    : [process.execPath, ['scripts/checks.mjs', '--idle']];
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      children.delete(child);
      resolve({ ok: code === 0, output });
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
const checks = startChecks();
const phases = [
  ['unit and integration tests', 'npx', ['vitest', 'run']],
  ['build', 'npm', ['run', 'build']],
  ['end-to-end specs', 'npm', ['run', 'test:e2e']],
];
let testsOk = true;
for (const [name, command, args] of phases) {
  if (!(await runPhase(name, command, args))) {
    console.error(`\n${name} failed; the phases after it were not run.`);
    testsOk = false;
    break;
  }
}
const checked = await checks;
console.log('\n── static checks (run beside the tests at idle priority)');
process.stdout.write(checked.output);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nnpm test: ${testsOk && checked.ok ? 'passed' : 'FAILED'} in ${minutes} min`);
process.exit(testsOk && checked.ok ? 0 : 1);
