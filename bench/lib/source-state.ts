/**
 * What a benchmark measured: the commit checked out and the product's source files that differed
 * from it then (the tree is shared; others' work in progress is measured too), for its section.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The commit checked out and the product's source files that differed from it. */
export interface SourceState {
  commit: string;
  changed: string[];
}

/** The commit and the product's changed source files (apps/server, apps/web, packages). */
export function sourceState(): SourceState {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trimEnd();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    const changed = git(
      'status',
      '--porcelain',
      '--',
      'apps/server/src',
      'apps/web/src',
      'packages',
    )
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3))
      .filter((path) => !/\.test\.tsx?$|\/test-support\//.test(path));
    return { commit, changed };
  } catch {
    return { commit: 'unknown', changed: [] };
  }
}

/** A sentence for a section: "at commit abc1234" and the files that differed. */
export function sourceSentence(state = sourceState()): string {
  return `Source: commit ${state.commit}${
    state.changed.length
      ? `, with ${state.changed.length} product file${state.changed.length > 1 ? 's' : ''} changed in the working tree (${state.changed.join(', ')})`
      : ', working tree clean'
  }.`;
}
