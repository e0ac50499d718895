import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiLatencySectionData } from '../api/api-latency-section';
import { renderFloorSection, type FloorSectionData } from '../floor/floor-section';
import { HEADER, writeSection } from './report';
import { summaryMarkdown, type LatestResults } from './results';
import {
  docProblems,
  parseDoc,
  publishSection,
  renderStoredSections,
  sectionDataFile,
  type SectionPaths,
} from './sections';

const FLOOR: FloorSectionData = {
  startedAt: '2026-11-27T16:21:09.314Z',
  node: 'v20.20.2',
  command: 'npm run bench -- floor',
  loadAtStart: [0.36, 1.55, 3.3],
  loadAtEnd: [1.07, 1.58, 3.22],
  agents: 500,
  calls: 100_000,
  queued: 25,
  samples: 300,
  warmup: 20,
  targetP95Ms: 200,
  rows: [
    {
      backend: 'PGlite',
      floor: { p50: 27.1, p95: 32.4, p99: 40.2, min: 24.9, max: 61.3 },
      reference: { p50: 4.1, p95: 5.9, p99: 7.7, min: 3.2, max: 12.5 },
      seedSeconds: 41.2,
      callsToday: 100_000,
      agents: 500,
      intervals: 64,
    },
  ],
  missing: '',
};

const API_LATENCY: ApiLatencySectionData = {
  date: '2026-11-27',
  node: 'v20.20.2',
  users: 10_000,
  calls: 100_000,
  samples: 400,
  warmup: 40,
  rows: [
    { backend: 'PGlite', name: 'GET /healthz (reference)', p50: 0.21, p99: 0.5 },
    { backend: 'PGlite', name: 'GET /api/v1/user (reference)', p50: 1.4, p99: 3.1 },
    { backend: 'PGlite', name: 'GET /api/v1/mycalls', p50: 6.3, p99: 11.9 },
  ],
  missing: 'PostgreSQL at postgres://…@127.0.0.1:5432/test did not answer.',
};

const LATEST: LatestResults = {
  rows: {
    floor: {
      name: 'floor',
      title: 'floor at size',
      statistic: 'p95 over 300 requests',
      ours: { label: 'GET /api/v1/floor', value: 32.4, unit: 'ms' },
      reference: { label: 'GET /api/v1/user', value: 5.9, unit: 'ms' },
      ratio: 5.49,
      target: 'p95 < 200 ms',
      met: true,
      command: 'npm run bench -- floor',
      measuredAt: '2026-11-27T16:21:56.098Z',
    },
  },
};

let dir: string;
let paths: SectionPaths;
const doc = () => readFileSync(paths.docFile, 'utf8');
const problemOf = (id: string) => docProblems(paths).sections.find((s) => s.id === id)?.problem;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-bench-sections-'));
  paths = { docFile: join(dir, 'benchmarks.md'), resultsDir: join(dir, 'results') };
  // The summary as bench/lib/results.ts writes it: latest.json, then its table first in the doc.
  publishSection('floor', FLOOR, paths);
  writeFileSync(join(paths.resultsDir, 'latest.json'), `${JSON.stringify(LATEST, null, 2)}\n`);
  writeSection('side-by-side', summaryMarkdown(LATEST), paths.docFile, true);
  publishSection('api-latency', API_LATENCY, paths);
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('publishSection', () => {
  it('stores the data as { id, data }, pretty-printed with a trailing newline', () => {
    const text = readFileSync(sectionDataFile('floor', paths), 'utf8');
    expect(text).toBe(`${JSON.stringify({ id: 'floor', data: FLOOR }, null, 2)}\n`);
    expect(sectionDataFile('floor', paths)).toBe(join(dir, 'results', 'sections', 'floor.json'));
  });

  it('writes the section rendered from the data, below the header, the summary first', () => {
    const parsed = parseDoc(doc());
    expect(parsed.header.trimEnd()).toBe(HEADER.trimEnd());
    expect(parsed.sections.map((s) => s.id)).toEqual(['side-by-side', 'floor', 'api-latency']);
    expect(parsed.sections[1]!.body).toBe(renderFloorSection(FLOOR).trim());
    expect(parsed.stray).toEqual([]);
  });

  it('a doc of published sections has no problem', () => {
    expect(docProblems(paths)).toEqual({
      outside: [],
      sections: [{ id: 'side-by-side' }, { id: 'floor' }, { id: 'api-latency' }],
    });
  });

  it('renders what JSON keeps, so the doc still matches its stored file', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const lossy = {
      ...FLOOR,
      rows: [{ ...FLOOR.rows[0]!, floor: { ...FLOOR.rows[0]!.floor, max: Number.NaN } }],
    };
    publishSection('floor', lossy, paths);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('data.rows[0].floor.max (NaN)'));
    expect(problemOf('floor')).toBeUndefined();
    expect(doc()).toContain('| 24.9–– |');
  });
});

describe('docProblems', () => {
  it('fails a section edited by one character, naming it and where it differs', () => {
    writeFileSync(paths.docFile, doc().replace('| **32.4** |', '| **32.3** |'));
    const problem = problemOf('floor');
    expect(problem).toMatch(
      /^section floor \(line \d+ of .*benchmarks\.md\) is not what .*floor\.json renders/,
    );
    expect(problem).toContain('**32.3**');
    expect(problem).toContain('npm run bench -- floor');
    expect(problemOf('api-latency')).toBeUndefined();
  });

  it('fails the summary edited by hand against latest.json', () => {
    writeFileSync(paths.docFile, doc().replace('| 5.49× |', '| 5.4× |'));
    expect(problemOf('side-by-side')).toMatch(/^section side-by-side .*latest\.json renders/);
  });

  it('fails a section whose data is missing, naming the command that regenerates it', () => {
    unlinkSync(sectionDataFile('floor', paths));
    expect(problemOf('floor')).toBe(
      'section floor has no stored data (' +
        sectionDataFile('floor', paths) +
        '): regenerate it with `npm run bench -- floor`',
    );
  });

  it('fails a section stored under another id', () => {
    writeFileSync(sectionDataFile('floor', paths), JSON.stringify({ id: 'api', data: FLOOR }));
    expect(problemOf('floor')).toContain('is not { "id": "floor", "data": … }');
  });

  it('fails a section no renderer is registered for', () => {
    writeSection('hand-made', 'Written by hand.', paths.docFile);
    expect(problemOf('hand-made')).toContain('no renderer is registered for it');
  });

  it('fails text outside the sections, and a changed header', () => {
    writeFileSync(
      paths.docFile,
      doc()
        .replace('<!-- api-latency:start -->', 'A note by hand.\n\n<!-- api-latency:start -->')
        .replace('# Benchmarks', '# Benchmark figures'),
    );
    const { outside } = docProblems(paths);
    expect(outside).toHaveLength(2);
    expect(outside[0]).toContain('is not the header of bench/lib/report.ts');
    expect(outside[1]).toMatch(/line \d+: outside every section .*A note by hand\./);
  });

  it('fails a start marker without its end, and a section repeated', () => {
    const text = doc();
    const floor = text.slice(
      text.indexOf('<!-- floor:start -->'),
      text.indexOf('<!-- floor:end -->') + 18,
    );
    writeFileSync(paths.docFile, `${text}\n${floor}\n\n<!-- open:start -->\nno end\n`);
    const { outside } = docProblems(paths);
    expect(outside.some((p) => p.includes('section floor appears a second time'))).toBe(true);
    expect(outside.some((p) => p.includes('<!-- open:start --> without <!-- open:end -->'))).toBe(
      true,
    );
  });
});

describe('renderStoredSections', () => {
  it('writes every section with stored data again, undoing a hand edit', () => {
    const published = doc();
    writeFileSync(paths.docFile, published.replace('| **32.4** |', '| **32.3** |'));
    writeSection('no-data', 'A section nobody publishes.', paths.docFile);
    const { rendered, left } = renderStoredSections(paths);
    expect(rendered).toEqual(['side-by-side', 'floor', 'api-latency']);
    expect(left).toEqual([expect.stringContaining('section no-data: no renderer')]);
    expect(problemOf('floor')).toBeUndefined();
    expect(doc()).toBe(
      `${published}\n<!-- no-data:start -->\nA section nobody publishes.\n<!-- no-data:end -->\n`,
    );
  });
});
