// docs/benchmarks.md is generated: every section is its stored data rendered by its registered
// renderer (bench/lib/section-registry.ts), and nothing else is in the doc but its header. A
// section edited by hand, or written without its data, fails here with the command that
// regenerates it.
import { describe, expect, it } from 'vitest';
import { docProblems } from './sections';

const { outside, sections } = docProblems();

describe('docs/benchmarks.md is generated', () => {
  it('has nothing outside its sections but the header', () => {
    expect(outside).toEqual([]);
  });

  it('has sections', () => {
    expect(sections.length).toBeGreaterThan(0);
  });

  it.each(sections.map((section) => [section.id, section.problem]))(
    'section %s is its stored data rendered',
    (_id, problem) => {
      if (problem !== undefined) expect.fail(problem);
    },
  );
});
