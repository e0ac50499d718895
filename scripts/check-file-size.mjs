// No production file over 600 lines (docs/architecture.md, "Files that do one job"). The files
// that were longer when the rule came are listed with the length they had: each may only
// shrink, and leaves the list once it is under the limit (the check says so). A file that is
// not listed and goes over fails the check.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const LIMIT = 600;
/** Too long when the rule came, to be split (issue 49): path → its length then. */
const SPLITTING = new Map([
  ['apps/web/src/console/console-controller.ts', 1086],
  ['apps/server/src/calls/call-flows.ts', 904],
]);
const TEST_SUPPORT =
  /(\.test\.tsx?$|\.e2e\.tsx?$|(^|\/)test-support\/|(^|\/)testing\/|(^|\/)fake-[^/]*$|-under-test\.tsx?$|\/migrations\/)/;

const root = new URL('..', import.meta.url).pathname;
const files = execFileSync(
  'git',
  ['ls-files', '-co', '--exclude-standard', ':(glob)apps/*/src/**', ':(glob)packages/*/src/**'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((path) => /\.(ts|tsx|js|mjs|cjs)$/.test(path) && !TEST_SUPPORT.test(path));

const problems = [];
for (const path of files) {
  let text;
  try {
    text = readFileSync(`${root}${path}`, 'utf8');
  } catch {
    continue; // deleted, not yet staged
  }
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const allowed = SPLITTING.get(path);
  if (allowed === undefined && lines > LIMIT) {
    problems.push(
      `${path}: ${lines} lines; a production file has at most ${LIMIT}: split it by job`,
    );
  } else if (allowed !== undefined && lines > allowed) {
    problems.push(
      `${path}: ${lines} lines, more than its ${allowed} when the rule came: split it, do not grow it`,
    );
  } else if (allowed !== undefined && lines <= LIMIT) {
    problems.push(
      `${path}: ${lines} lines, under the limit now: take it off the list in scripts/check-file-size.mjs`,
    );
  }
}
for (const path of SPLITTING.keys()) {
  if (!files.includes(path))
    problems.push(`${path} is gone: take it off the list in scripts/check-file-size.mjs`);
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(
  `${files.length} production files, none over ${LIMIT} lines but the ${SPLITTING.size} being split`,
);
