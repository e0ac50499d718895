/**
 * `npm run admin -- …` as an operator runs it: a child process of npm at the repository's root,
 * with the environment given (the test's own `DATABASE_URL` is not inherited: a command works on
 * the database the test names), and what it printed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { runAdminCommand, sentenceOf } from '../admin/admin-command';
import { serverRoot } from '../lib/app-root';

/** A run of `npm run admin -- <args>`: its exit code and output. */
export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run admin -- <args>` at the repository's root with `input` on standard input. */
export function runAdmin(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<AdminRun> {
  const { DATABASE_URL: _inherited, ...ours } = process.env;
  const child = spawn('npm', ['run', 'admin', '--', ...args], {
    cwd: join(serverRoot(), '..', '..'),
    env: { ...ours, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/**
 * The same command run in this process (`runAdminCommand`, what the script's `main` calls) with
 * `env` as its environment: a failure is exit code 1 and its sentence on stderr, as the script
 * reports it. Seconds faster than a child of npm and tsx; {@link runAdmin} shows the script's
 * own wiring.
 */
export async function runAdminHere(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<AdminRun> {
  const { DATABASE_URL: _inherited, ...ours } = process.env;
  const lines: string[] = [];
  try {
    await runAdminCommand(
      args,
      () => Readable.from([input]),
      { out: (line) => lines.push(line) },
      {
        ...ours,
        ...env,
      },
    );
    return { code: 0, stdout: lines.map((line) => `${line}\n`).join(''), stderr: '' };
  } catch (error) {
    return {
      code: 1,
      stdout: lines.map((line) => `${line}\n`).join(''),
      stderr: `${sentenceOf(error)}\n`,
    };
  }
}

/** The last line a run printed (the commands print their JSON there). */
export const lastLineOf = (text: string): string | undefined => text.trimEnd().split('\n').at(-1);

/** The command's sentence: the first line on stderr (npm's own report of the failure follows). */
export const refusalOf = (run: AdminRun): string | undefined => run.stderr.split('\n')[0];

/** Expects a refusal: exit 1, `sentence` first on stderr, no stack trace. */
export function expectRefused(run: AdminRun, sentence: string | RegExp): void {
  expect(run.code, run.stdout + run.stderr).toBe(1);
  if (typeof sentence === 'string') expect(refusalOf(run)).toBe(sentence);
  else expect(refusalOf(run)).toMatch(sentence);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}
