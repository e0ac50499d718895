/**
 * `npx tsx bench/render-sections.ts`: writes every section of docs/benchmarks.md again from its
 * stored data (bench/results/sections/<id>.json, and latest.json for the summary), measuring
 * nothing: after a renderer's wording changed, or to undo a hand edit. Sections without stored
 * data are left as they are, and named.
 */
import { renderStoredSections } from './lib/sections';

const { rendered, left } = renderStoredSections();
console.log(`rendered from stored data: ${rendered.join(', ') || 'none'}`);
for (const reason of left) console.log(`left as it is: ${reason}`);
