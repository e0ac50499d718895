/**
 * Every generated section of docs/benchmarks.md: its id, the pure renderer that turns its stored
 * data into markdown, and the command that measures it again. Renderers live beside their
 * benchmarks in modules without side effects (no clock, no machine, no files), so the doc's test
 * imports them without starting anything.
 *
 * A benchmark's section is added here when the benchmark publishes it (sections.ts
 * `publishSection`); a section of the doc with no entry fails bench/lib/doc-generated.test.ts.
 */
import { renderApiLatencySection } from '../api/api-latency-section';
import { renderApiSection } from '../api/api-section';
import { renderBundleSection } from '../bundle/bundle-section';
import { renderCapacity } from '../capacity/report';
import { renderCallSetupSection } from '../webrtc/call-setup-section';
import { renderSdkCallSetupSection } from '../sdk/call-setup-section';
import { renderAppLoadSection } from '../console/app-load-section';
import { renderIncomingLeadSection } from '../console/incoming-lead-section';
import { renderEngineSection } from '../engine/engine-section';
import { renderFloorSection } from '../floor/floor-section';
import { renderRealtimeSection } from '../realtime/realtime-section';
import { renderRoutingSection } from '../routing/routing-section';
import { renderMouthToEarSection } from '../webrtc/mouth-to-ear-section';
import { summaryMarkdown } from './results';

/** How one section is generated. */
export interface SectionKind<T> {
  /** Markdown from the stored data alone; the same data always gives the same text. */
  render: (data: T) => string;
  /** What measures the section again (named when its data is missing or differs). */
  command: string;
}

const section = <T>(render: (data: T) => string, command: string): SectionKind<T> => ({
  render,
  command,
});

/** The summary table, rendered from bench/results/latest.json rather than a file of its own. */
export const SUMMARY_SECTION = 'side-by-side';

/** Section id → its renderer and command. */
export const SECTION_REGISTRY = {
  [SUMMARY_SECTION]: section(summaryMarkdown, 'npm run bench'),
  'api-latency': section(renderApiLatencySection, 'npm run bench -- api-latency'),
  'bundle-size': section(renderBundleSection, 'npm run bench -- bundle-size'),
  engine: section(renderEngineSection, 'npm run bench -- engine-pacing'),
  routing: section(renderRoutingSection, 'npm run bench -- routing'),
  realtime: section(renderRealtimeSection, 'npm run bench -- realtime'),
  'incoming-lead': section(renderIncomingLeadSection, 'npm run bench -- incoming-lead'),
  'mouth-to-ear': section(renderMouthToEarSection, 'npm run bench -- mouth-to-ear'),
  api: section(renderApiSection, 'npm run bench -- api'),
  'app-load': section(renderAppLoadSection, 'npm run bench -- app-load'),
  floor: section(renderFloorSection, 'npm run bench -- floor'),
  'engine-capacity': section(renderCapacity, 'npm run bench -- engine-capacity'),
  'call-setup': section(renderCallSetupSection, 'npm run bench -- call-setup'),
  'sdk-call-setup': section(renderSdkCallSetupSection, 'npm run bench -- sdk-call-setup'),
} as const;

/** A registered section's id. */
export type SectionId = keyof typeof SECTION_REGISTRY;

/** The sections a benchmark publishes with its own data file (all but the summary). */
export type PublishedSectionId = Exclude<SectionId, typeof SUMMARY_SECTION>;

/** The data `id`'s renderer takes. */
export type SectionData<Id extends SectionId> =
  (typeof SECTION_REGISTRY)[Id] extends SectionKind<infer T> ? T : never;
