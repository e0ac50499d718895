/**
 * "Generated means generated": every section of docs/benchmarks.md is its stored data rendered.
 * A benchmark hands its figures to {@link publishSection}, which stores them in
 * `bench/results/sections/<id>.json` and writes the section rendered from what was stored, by
 * the section's pure renderer (section-registry.ts). {@link docProblems} renders every stored
 * file again and compares it with the doc (doc-generated.test.ts), so a section edited by hand,
 * or one written without its data, fails a test. The summary table (`side-by-side`) is the
 * rendering of bench/results/latest.json (results.ts writes both).
 *
 * Paths are a parameter ({@link SectionPaths}) so tests work on a temporary copy.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLosses } from './json-losses';
import { BENCHMARKS_DOC, HEADER, writeSection } from './report';
import { RESULTS_DIR } from './results';
import {
  SECTION_REGISTRY,
  SUMMARY_SECTION,
  type PublishedSectionId,
  type SectionData,
  type SectionId,
} from './section-registry';

/** Where the doc and the stored data are. */
export interface SectionPaths {
  /** The doc the sections are written into (docs/benchmarks.md). */
  docFile: string;
  /** bench/results: latest.json, and sections/<id>.json. */
  resultsDir: string;
}

/** The repository's doc and results. */
export const BENCH_PATHS: SectionPaths = { docFile: BENCHMARKS_DOC, resultsDir: RESULTS_DIR };

/** The command that renders every section again from its stored data, measuring nothing. */
export const RENDER_COMMAND = 'npx tsx bench/render-sections.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** A path as the messages show it: from the repository's root when inside it. */
const shown = (file: string): string => {
  const path = relative(repoRoot, file);
  return path.startsWith('..') ? file : path;
};

/** A section's stored data as written: its id beside it, so a file names what it is. */
export interface StoredSection<T = unknown> {
  id: string;
  data: T;
}

/** The JSON file holding `id`'s data: latest.json for the summary, sections/<id>.json else. */
export function sectionDataFile(id: string, paths: SectionPaths = BENCH_PATHS): string {
  return id === SUMMARY_SECTION
    ? join(paths.resultsDir, 'latest.json')
    : join(paths.resultsDir, 'sections', `${id}.json`);
}

const isRegistered = (id: string): id is SectionId => Object.hasOwn(SECTION_REGISTRY, id);

/** `id`'s section from `data`, as publishSection would write it (for a run that only prints). */
export function renderSection<Id extends SectionId>(id: Id, data: SectionData<Id>): string {
  return renderStored(id, data);
}

/** `id`'s renderer applied to data read back from `id`'s JSON. */
function renderStored(id: SectionId, data: unknown): string {
  // The registry's renderers each take their own data type; what is stored under an id is what
  // publishSection was given for that id, typed there.
  const render = SECTION_REGISTRY[id].render as (data: unknown) => string;
  return render(data);
}

/**
 * Stores `data` as `id`'s JSON, then writes `id`'s section of the doc rendered from the stored
 * JSON (not from `data`: the doc is then what the stored file renders, whatever JSON changed).
 * Returns the section's markdown.
 */
export function publishSection<Id extends PublishedSectionId>(
  id: Id,
  data: SectionData<Id>,
  paths: SectionPaths = BENCH_PATHS,
): string {
  const losses = jsonLosses(data);
  if (losses.length > 0) {
    console.warn(
      `section ${id}: JSON does not keep ${losses.join(', ')}; the section is rendered from what it keeps (null, a string or nothing)`,
    );
  }
  const file = sectionDataFile(id, paths);
  const stored: StoredSection<SectionData<Id>> = { id, data };
  const text = `${JSON.stringify(stored, null, 2)}\n`;
  mkdirSync(dirname(file), { recursive: true });
  // Stored before rendering: a renderer that throws loses no measurement, and the section can be
  // rendered again once it is fixed (RENDER_COMMAND).
  writeFileSync(file, text);
  const markdown = renderStored(id, (JSON.parse(text) as StoredSection).data);
  writeSection(id, markdown, paths.docFile);
  return markdown;
}

/** `id`'s stored data, or why there is none to render. */
export function readSectionData(
  id: string,
  paths: SectionPaths = BENCH_PATHS,
): { data: unknown } | { problem: string } {
  if (!isRegistered(id)) {
    return {
      problem: `section ${id}: no renderer is registered for it (bench/lib/section-registry.ts); its benchmark writes it without publishSection`,
    };
  }
  const file = sectionDataFile(id, paths);
  const { command } = SECTION_REGISTRY[id];
  if (!existsSync(file)) {
    return {
      problem: `section ${id} has no stored data (${shown(file)}): regenerate it with \`${command}\``,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { problem: `section ${id}: ${shown(file)} is not JSON (${String(error)})` };
  }
  if (id === SUMMARY_SECTION) return { data: parsed };
  const stored = parsed as Partial<StoredSection>;
  if (stored.id !== id || !('data' in stored)) {
    return {
      problem: `section ${id}: ${shown(file)} is not { "id": "${id}", "data": … }; regenerate it with \`${command}\``,
    };
  }
  return { data: stored.data };
}

/** A section of the doc as found between its markers. */
export interface DocSection {
  id: string;
  /** The text between the markers, without the newlines next to them. */
  body: string;
  /** 1-based line of the start marker. */
  line: number;
}

/** The doc cut into its header, its sections, and whatever else it holds. */
export interface ParsedDoc {
  header: string;
  sections: DocSection[];
  /** Text outside the header and the sections, or markers that do not pair up. */
  stray: Array<{ line: number; text: string }>;
}

const START = /<!-- ([\w-]+):start -->/g;
const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Cuts `text` (the doc) at its `<!-- id:start -->` / `<!-- id:end -->` markers. */
export function parseDoc(text: string): ParsedDoc {
  const sections: DocSection[] = [];
  const stray: ParsedDoc['stray'] = [];
  const between = (from: number, to: number) => {
    const gap = text.slice(from, to);
    const at = gap.search(/\S/);
    if (at >= 0) stray.push({ line: lineAt(text, from + at), text: gap.trim().slice(0, 120) });
  };
  let header: string | undefined;
  let cursor = 0;
  for (const match of text.matchAll(START)) {
    if (match.index < cursor) continue; // A start marker inside a section's body.
    const id = match[1]!;
    const end = `<!-- ${id}:end -->`;
    const endAt = text.indexOf(end, match.index);
    if (header === undefined) header = text.slice(0, match.index);
    else between(cursor, match.index);
    if (endAt < 0) {
      stray.push({ line: lineAt(text, match.index), text: `${match[0]} without ${end}` });
      cursor = match.index + match[0].length;
      continue;
    }
    sections.push({
      id,
      body: text
        .slice(match.index + match[0].length, endAt)
        .replace(/^\n/, '')
        .replace(/\n$/, ''),
      line: lineAt(text, match.index),
    });
    cursor = endAt + end.length;
  }
  if (header === undefined) {
    header = text;
    cursor = text.length;
  }
  between(cursor, text.length);
  return { header, sections, stray };
}

/** The first line where `actual` and `expected` differ, cut around the first differing character. */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const e = expected.split('\n');
  const i = a.findIndex((line, k) => line !== e[k]);
  const at = i < 0 ? a.length : i;
  const docLine = a[at] ?? '';
  const renderedLine = e[at] ?? '';
  let column = 0;
  while (column < docLine.length && docLine[column] === renderedLine[column]) column++;
  // Paragraphs run to thousands of characters: show where they part, not their beginning.
  const from = Math.max(0, column - 60);
  const cut = (line: string | undefined) =>
    line === undefined
      ? '(nothing)'
      : JSON.stringify(
          `${from > 0 ? '…' : ''}${line.slice(from, from + 160)}${line.length > from + 160 ? '…' : ''}`,
        );
  return `line ${at + 1} of the section, character ${column + 1}:\n  doc:      ${cut(a[at])}\n  rendered: ${cut(e[at])}`;
}

/** Why `section` is not its stored data rendered, or undefined when it is. */
export function sectionProblem(
  section: DocSection,
  paths: SectionPaths = BENCH_PATHS,
): string | undefined {
  const stored = readSectionData(section.id, paths);
  if ('problem' in stored) return stored.problem;
  const id = section.id as SectionId;
  let rendered: string;
  try {
    rendered = renderStored(id, stored.data).trim();
  } catch (error) {
    return `section ${id}: its renderer failed on ${shown(sectionDataFile(id, paths))}: ${String(error)}`;
  }
  if (section.body === rendered) return undefined;
  return `section ${id} (line ${section.line} of ${shown(paths.docFile)}) is not what ${shown(sectionDataFile(id, paths))} renders, first at ${firstDifference(section.body, rendered)}\nSections are generated, not edited: change the renderer and run \`${RENDER_COMMAND}\`, or measure again with \`${SECTION_REGISTRY[id].command}\`.`;
}

/** Everything that keeps the doc from being its header and its generated sections. */
export interface DocProblems {
  /** The header changed, text outside the sections, unpaired or repeated markers. */
  outside: string[];
  /** Each section of the doc, in order, with why it is not its data rendered (if it is not). */
  sections: Array<{ id: string; problem?: string }>;
}

/** Checks the doc at `paths.docFile` against the data under `paths.resultsDir`. */
export function docProblems(paths: SectionPaths = BENCH_PATHS): DocProblems {
  const doc = shown(paths.docFile);
  if (!existsSync(paths.docFile)) return { outside: [`${doc} is missing`], sections: [] };
  const parsed = parseDoc(readFileSync(paths.docFile, 'utf8'));
  const outside: string[] = [];
  if (parsed.header.trimEnd() !== HEADER.trimEnd()) {
    outside.push(
      `${doc}: the text above the first section is not the header of bench/lib/report.ts (HEADER)`,
    );
  }
  for (const { line, text } of parsed.stray) {
    outside.push(`${doc}, line ${line}: outside every section (write it elsewhere): ${text}`);
  }
  const seen = new Set<string>();
  for (const { id, line } of parsed.sections) {
    if (seen.has(id)) outside.push(`${doc}, line ${line}: section ${id} appears a second time`);
    seen.add(id);
  }
  return {
    outside,
    sections: parsed.sections.map((section) => {
      const problem = sectionProblem(section, paths);
      return problem === undefined ? { id: section.id } : { id: section.id, problem };
    }),
  };
}

/**
 * Writes every section of the doc that has a renderer and stored data again from that data (and
 * sections with stored data the doc lacks); measures nothing. Returns the ids rendered and the
 * reasons others were left as they are.
 */
export function renderStoredSections(paths: SectionPaths = BENCH_PATHS): {
  rendered: string[];
  left: string[];
} {
  const inDoc = existsSync(paths.docFile)
    ? parseDoc(readFileSync(paths.docFile, 'utf8')).sections.map((s) => s.id)
    : [];
  const ids = [...new Set([...inDoc, ...Object.keys(SECTION_REGISTRY)])];
  const rendered: string[] = [];
  const left: string[] = [];
  for (const id of ids) {
    const stored = readSectionData(id, paths);
    if ('problem' in stored) {
      // Registered sections not in the doc and without data are simply not measured yet.
      if (inDoc.includes(id)) left.push(stored.problem);
      continue;
    }
    let markdown: string;
    try {
      markdown = renderStored(id as SectionId, stored.data);
    } catch (error) {
      left.push(`section ${id}: its renderer failed: ${String(error)}`);
      continue;
    }
    writeSection(id, markdown, paths.docFile, id === SUMMARY_SECTION);
    rendered.push(id);
  }
  return { rendered, left };
}
