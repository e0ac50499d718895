/**
 * Writes one benchmark's section into docs/benchmarks.md, between its own markers, so every
 * benchmark owns a section and re-running one leaves the others alone.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** docs/benchmarks.md. */
export const BENCHMARKS_DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

/**
 * The top of docs/benchmarks.md, above its sections: the only text of the doc that no benchmark
 * generates (bench/lib/doc-generated.test.ts holds the doc to that).
 */
export const HEADER = `# Benchmarks

Measured on this project's reference machine (2 cores), each with the command that produced it and as ratios to a reference measured in the same run. Regenerate with \`npm run bench\` (all) or the command of a section. No test asserts a timing. Every section is generated from its stored results (bench/results/), not written by hand; notes written by hand on the figures are in docs/performance-notes.md.
`;

/**
 * Replaces the section named `id` of docs/benchmarks.md, or of `file`; a new section goes at the
 * end, or before every other section with `first`.
 */
export function writeSection(
  id: string,
  markdown: string,
  file = BENCHMARKS_DOC,
  first = false,
): void {
  const start = `<!-- ${id}:start -->`;
  const end = `<!-- ${id}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const firstSection = current.indexOf('<!-- ');
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : first && firstSection >= 0
        ? `${current.slice(0, firstSection)}${block}\n\n${current.slice(firstSection)}`
        : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
}
