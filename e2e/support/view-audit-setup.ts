/**
 * Setup of every e2e spec file (vitest `setupFiles`): after the file's tests, the views its
 * console pages showed (support/view-audit.ts) must have had no serious or critical axe-core
 * violation. Prints which views were checked, and any shown too briefly to be.
 */
import { afterAll, expect } from 'vitest';
import { auditedViews, uncheckedViews, viewViolations } from './view-audit';

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
});
