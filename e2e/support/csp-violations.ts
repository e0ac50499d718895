/**
 * Content-Security-Policy violations of every console page the specs open: each browser context
 * (`loopbackOnlyContext`) reports the page's `securitypolicyviolation` events here, and the setup
 * file (`view-audit-setup.ts`) fails the spec file in `afterAll` when any happened. So the whole
 * console, in every spec, runs under the product's policy with nothing refused.
 */
import type { BrowserContext } from 'playwright-core';

/** The page's binding the in-page listener reports through. */
const BINDING = '__leadlineCspViolation';

/** One violation as the page saw it. */
export interface CspViolation {
  page: string;
  directive: string;
  blocked: string;
  source: string;
}

const violations: CspViolation[] = [];

/** Listens for violations in every page of `context` (call before it opens a page). */
export async function watchCspViolations(context: BrowserContext): Promise<void> {
  await context.exposeBinding(BINDING, (_source, violation: CspViolation) => {
    violations.push(violation);
  });
  await context.addInitScript((binding: string) => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as Record<string, (v: unknown) => void>)[binding];
      report?.({
        page: location.pathname,
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        source: `${event.sourceFile}:${event.lineNumber}`,
      });
    });
  }, BINDING);
}

/** Every violation reported so far in this spec file. */
export function cspViolations(): readonly CspViolation[] {
  return violations;
}
