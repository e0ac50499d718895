/**
 * axe-core on every view of the console an e2e spec reaches, without a call in the specs: every
 * browser context the specs open (`loopbackOnlyContext`) watches the console page, and each time
 * the page shows a view it has not shown before (the shell's `data-app-status` with the labelled
 * regions, groups, lists, banners, alerts and open pop-ups on screen: its *signature*) it runs
 * axe-core once in the page and reports the serious and critical violations here. The setup file
 * (`view-audit-setup.ts`) fails the spec file in `afterAll` when any view had one, and prints
 * which views were checked.
 *
 * A view that changed while axe ran (a test clicked on) is not counted as checked; it is tried
 * again whenever it is shown again, and listed as unchecked if it never stays long enough
 * (`accessibility.e2e.ts` holds every view still and checks it explicitly).
 */
import { join } from 'node:path';
import type AxeCore from 'axe-core';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { overflowingElements } from './console';
import { axeCoreSource, seriousViolations } from './page-checks';

/** The page's binding through which the in-page auditor reports (and asks what is known). */
const BINDING = '__leadlineViewAudit';

/** A message of the in-page auditor. */
type AuditMessage =
  | { readonly kind: 'known'; readonly view: string }
  | { readonly kind: 'audited'; readonly view: string; readonly violations: string[] }
  | { readonly kind: 'missed'; readonly view: string };

/** What the spec file's pages reported: view signature → its violations. */
const audited = new Map<string, readonly string[]>();
/** Views shown that changed before axe finished on them. */
const missed = new Set<string>();

/**
 * Installs the auditor in `context`: axe-core and a watcher in every page opened from it (top
 * frame only). Call before the context opens a page.
 */
export async function auditViews(context: BrowserContext): Promise<void> {
  await context.exposeBinding(BINDING, (_source, message: AuditMessage) => {
    if (message.kind === 'known') return audited.has(message.view);
    if (message.kind === 'missed') missed.add(message.view);
    else audited.set(message.view, message.violations);
    return true;
  });
  await context.addInitScript({ content: axeCoreSource() });
  await context.addInitScript(inPageAuditor, BINDING);
  // A test's last view is checked too: closing the context waits for its pages' audits.
  const close = context.close.bind(context);
  context.close = async (options) => {
    await Promise.all(context.pages().map(finishAudit));
    return close(options);
  };
}

/** Lets the page's auditor finish the check under way and check the view shown now. */
async function finishAudit(page: Page): Promise<void> {
  await page
    .evaluate(() =>
      (
        window as unknown as { __leadlineViewAuditIdle?: () => Promise<void> }
      ).__leadlineViewAuditIdle?.(),
    )
    // A page that is closing or navigating has nothing left to check.
    .catch(() => undefined);
}

/** The views checked in this spec file (signature → serious and critical violations). */
export function auditedViews(): ReadonlyMap<string, readonly string[]> {
  return audited;
}

/** Every violation found, as `<view> — <rule>: <elements>`. */
export function viewViolations(): string[] {
  return [...audited].flatMap(([view, violations]) => violations.map((v) => `${view} — ${v}`));
}

/** Views that were shown but never stayed long enough to be checked. */
export function uncheckedViews(): string[] {
  return [...missed].filter((view) => !audited.has(view));
}

/**
 * The view as it is now, checked at 360 and 1280 px wide: a full-page screenshot at each
 * (`<dir>/<name>-<width>.png`), nothing sticking out past the screen's edge, and no serious or
 * critical axe-core violation; and the view audit has it among the views it checked.
 */
export async function checkViewAtBothWidths(page: Page, dir: string, name: string) {
  const auditOfView = async () => {
    await finishAudit(page);
    const view = await page.evaluate(() =>
      (
        window as unknown as { __leadlineViewSignature?: () => string | null }
      ).__leadlineViewSignature?.(),
    );
    return { name, view, audited: view ? auditedViews().has(view) : false };
  };
  // A status line may change as the view is looked at ('Saving…', 'Saved'): the view as it is.
  await expect.poll(auditOfView, { timeout: 10_000 }).toMatchObject({ name, audited: true });
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
    expect({ name, width, overflowing: await overflowingElements(page) }).toEqual({
      name,
      width,
      overflowing: [],
    });
    expect({ name, width, violations: await seriousViolations(page) }).toEqual({
      name,
      width,
      violations: [],
    });
  }
}

/**
 * Runs in the page (serialised by Playwright: no closures over this module). Watches the DOM;
 * for each view signature not yet checked (here or, as the binding answers, in another page of
 * the spec file) it waits for finite animations to end, runs axe-core and reports.
 */
function inPageAuditor(binding: string): void {
  if (window.top !== window) return;
  type Report = (message: unknown) => Promise<unknown>;
  const report = (message: unknown) =>
    ((window as unknown as Record<string, Report>)[binding]?.(message) ?? Promise.resolve(null))
      // The page may close or navigate while a report is under way.
      .catch(() => null);
  let queue: Promise<unknown> = Promise.resolve();
  const runAxe = (): Promise<string[]> => {
    const run = queue.then(async () => {
      const { axe } = window as unknown as { axe: typeof AxeCore };
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    queue = run.catch(() => undefined);
    return run;
  };
  (window as unknown as { __leadlineAxe: typeof runAxe }).__leadlineAxe = runAxe;

  const PARTS = [
    'section',
    'nav',
    'form',
    '[role=group]',
    '[role=radiogroup]',
    '[role=dialog]',
    '[role=alertdialog]',
    '[role=alert]',
    '[role=listbox]',
    '[role=menu]',
    'ul[aria-label]',
    'ol[aria-label]',
    'dl[aria-label]',
    // Banners (incoming, warning, error…) and status lines (phone ready, in another tab…).
    '.banner',
    '[role=status]',
    '[aria-expanded=true][aria-controls]',
  ].join(',');
  const visible = (el: Element) => el.checkVisibility();
  const nameOf = (el: Element): string => {
    const role = el.getAttribute('role');
    const said = Boolean(el.textContent?.trim());
    // A banner or status line by its look (incoming, warning, in another tab…), whatever it says.
    if (el.classList.contains('banner') || role === 'status') {
      return said ? `.${[...el.classList].join('.')}` : '';
    }
    if (role === 'alert') return said ? 'alert' : '';
    const controls =
      el.getAttribute('aria-expanded') === 'true' && el.getAttribute('aria-controls');
    if (controls) {
      const popup = document.getElementById(controls);
      return popup ? `open:${popup.className || popup.tagName.toLowerCase()}` : '';
    }
    const labelledBy = el.getAttribute('aria-labelledby');
    const label =
      el.getAttribute('aria-label') ??
      (labelledBy
        ? labelledBy
            .split(/\s+/)
            .map((id) => document.getElementById(id)?.textContent?.trim() ?? '')
            .join(' ')
        : null);
    const tag = role ?? el.tagName.toLowerCase();
    return label ? `${tag} "${label}"` : `${tag}.${[...el.classList].join('.')}`;
  };
  const signature = (): string | null => {
    const shell = document.querySelector('[data-app-status]');
    if (!shell) return null;
    const parts = [...document.querySelectorAll(PARTS)].filter(visible).map(nameOf);
    return [shell.getAttribute('data-app-status'), ...new Set(parts.filter(Boolean))].join(' › ');
  };
  (window as unknown as { __leadlineViewSignature: typeof signature }).__leadlineViewSignature =
    signature;
  // A hidden page's animations do not run: nothing to wait for there.
  const settled = () =>
    Promise.all(
      (document.visibilityState === 'visible' ? document.getAnimations() : [])
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    );

  const checked = new Set<string>();
  let scheduled = false;
  let running = false;
  let current: Promise<void> = Promise.resolve();
  const checkNow = () => {
    if (!running) current = check();
    return current;
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      // While a check runs, its end schedules the next one.
      void checkNow();
    }, 0);
  };
  // Before the page closes: the check under way, then the view shown now.
  (window as unknown as { __leadlineViewAuditIdle: () => Promise<void> }).__leadlineViewAuditIdle =
    async () => {
      await current;
      await checkNow();
    };
  const check = async () => {
    if (running) return;
    const view = signature();
    if (view === null || checked.has(view)) return;
    running = true;
    try {
      if ((await report({ kind: 'known', view })) === true) {
        checked.add(view);
        return;
      }
      await settled();
      if (signature() !== view) {
        await report({ kind: 'missed', view });
        return;
      }
      const violations = await runAxe().catch((error: unknown) => [
        `axe-core failed: ${error instanceof Error ? error.message : String(error)}`,
      ]);
      if (signature() !== view) {
        await report({ kind: 'missed', view });
        return;
      }
      checked.add(view);
      await report({ kind: 'audited', view, violations });
    } finally {
      running = false;
      schedule();
    }
  };
  const start = () => {
    new MutationObserver(schedule).observe(document.documentElement, {
      subtree: true,
      childList: true,
      // Status lines change their text (and class) with the phone's state.
      characterData: true,
      attributes: true,
      attributeFilter: ['hidden', 'aria-expanded', 'aria-busy', 'data-app-status'],
    });
    schedule();
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}
