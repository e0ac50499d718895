/**
 * Setup of every e2e spec file (vitest `setupFiles`): after the file's tests, the views its
 * console pages showed (support/view-audit.ts) must have had no serious or critical axe-core
 * violation, and no Content-Security-Policy violation may have happened in its pages. Prints
 * which views were checked, and any shown too briefly to be.
 */
import { afterAll, expect } from 'vitest';
import { auditedViews, uncheckedViews, viewViolations } from './view-audit';
import { cspViolations } from './csp-violations';

afterAll(() => {
  const views = [...auditedViews().keys()];
  if (views.length > 0) {
    const unchecked = uncheckedViews();
    console.info(
      [
        `axe-core checked ${views.length} views:`,
        ...views.map((view) => `  ${view}`),
        ...(unchecked.length > 0
          ? ['shown too briefly to check:', ...unchecked.map((view) => `  ${view}`)]
          : []),
      ].join('\n'),
    );
  }
  expect(viewViolations()).toEqual([]);
  // The console ran under the product's Content-Security-Policy with nothing refused.
  expect(cspViolations()).toEqual([]);
});
