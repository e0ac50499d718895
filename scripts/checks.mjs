// The static checks of `npm test` (which runs them beside the tests at idle priority; alone:
// `npm run check`), run side by side: each workspace's typecheck, ESLint and
// Prettier are independent processes, so they share the machine's cores instead of queueing
// (about a minute less on CI's two cores). Each check's output is printed whole when it ends;
// the exit code is non-zero when any check failed, after every check ended.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const { workspaces } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/** @type {Array<{ name: string; command: string; args: string[]; cwd: string }>} */
const checks = [
  { name: 'eslint', command: 'npx', args: ['eslint', '.', '--max-warnings', '0'], cwd: root },
  ...workspaces.flatMap((workspace) => {
    const manifest = JSON.parse(readFileSync(`${root}${workspace}/package.json`, 'utf8'));
    if (!manifest.scripts?.typecheck) return [];
    return [
      {
        name: `typecheck ${workspace}`,
        command: 'npm',
        args: ['run', '--silent', 'typecheck'],
        cwd: `${root}${workspace}`,
      },
    ];
  }),
  // Each workspace with a `.dependency-cruiser.cjs` holds its imports to its layer table
  // (docs/architecture.md): no import against the layers, no circle, no test support in
  // production code.
  ...workspaces.flatMap((workspace) =>
    existsSync(`${root}${workspace}/.dependency-cruiser.cjs`)
      ? [
          {
            name: `layers ${workspace}`,
            command: 'npx',
            args: [
              'depcruise',
              'src',
              '--config',
              '.dependency-cruiser.cjs',
              '--output-type',
              'err',
            ],
            cwd: `${root}${workspace}`,
          },
        ]
      : [],
  ),
  {
    name: 'file sizes',
    command: 'node',
    args: ['scripts/check-file-size.mjs'],
    cwd: root,
  },
  {
    name: 'prettier',
    command: 'npx',
    args: ['prettier', '--check', '.', '--log-level', 'warn'],
    cwd: root,
  },
];

const run = ({ name, command, args, cwd }) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)`);
      if (code !== 0 || output.trim()) process.stdout.write(output);
      resolve(code === 0);
    });
  });

const queue = [...checks];
let failed = false;
await Promise.all(
  Array.from({ length: Math.max(1, availableParallelism()) }, async () => {
    for (let check = queue.shift(); check; check = queue.shift()) {
      if (!(await run(check))) failed = true;
    }
  }),
);
process.exit(failed ? 1 : 0);
