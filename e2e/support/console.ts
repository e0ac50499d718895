/** The call console as an agent opens it: log in and wait until the softphone is registered. */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** The demo accounts' password (README). */
export const DEMO_PASSWORD = 'leadline-demo';

/**
 * Opens the console at `url` in `page`, logs `email` in and resolves once the console shows
 * 'Waiting for lead...' and the gateway has answered the softphone's `register` with `ready`.
 */
export async function logInToConsole(page: Page, url: string, email: string): Promise<void> {
  const registered = new Promise<void>((resolve) => {
    page.on('websocket', (ws) =>
      ws.on('framereceived', (frame) => {
        if (typeof frame.payload === 'string' && frame.payload.includes('"type":"ready"'))
          resolve();
      }),
    );
  });
  await page.goto(url);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect
    .poll(() => page.getByText('Waiting for lead...').isVisible(), { timeout: 20_000 })
    .toBe(true);
  await registered;
}

/**
 * Elements of the page that stick out past the right edge of the viewport (a layout that does
 * not fit the width), as `tag.class` names; empty when everything fits.
 */
export async function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`);
  });
}

/**
 * Screenshots of `page` at 360 and 1280 px wide (`<dir>/<name>-<width>.png`, full page), each
 * checked for content sticking out past the screen's edge.
 */
export async function screenshotsAtBothWidths(
  page: Page,
  dir: string,
  name: string,
): Promise<void> {
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
    expect(await overflowingElements(page)).toEqual([]);
  }
}

/** A Call Result button. */
export type CallResult = 'Contacted' | 'Voicemail' | 'Missed' | 'Remove';

/**
 * Records `result` on the Call Result view and goes back to waiting the quickest way: past the
 * follow-up the result leads to (Tags & Stages: Skip; Send SMS: Cancel), then Done.
 */
export async function recordResultAndFinish(page: Page, result: CallResult): Promise<void> {
  await page.getByRole('button', { name: new RegExp(`^${result}`) }).click();
  const heading = (name: string) => page.getByRole('heading', { name, exact: true });
  const next = async () => {
    for (const name of ['Thank you!', 'Tags & Stages', 'Send SMS']) {
      if (await heading(name).isVisible()) return name;
    }
    return null;
  };
  await expect.poll(next, { timeout: 10_000 }).not.toBeNull();
  const view = await next();
  if (view === 'Tags & Stages') await page.getByRole('button', { name: /^Skip/ }).click();
  if (view === 'Send SMS') await page.getByRole('button', { name: /^Cancel/ }).click();
  await doneAndReady(page);
}

/**
 * Thank you → Done, and waits until the server has the agent ready for the next lead (its
 * wrap-up ended), so closing the page right after cannot leave the agent wrapping up.
 */
export async function doneAndReady(page: Page): Promise<void> {
  const ready = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' &&
      new URL(response.url()).pathname === '/api/v1/user/wrap-up/done' &&
      response.ok(),
    { timeout: 15_000 },
  );
  await page.getByRole('button', { name: /^Done/ }).click();
  await ready;
  await expect
    .poll(() => page.getByText('Waiting for lead...').isVisible(), { timeout: 10_000 })
    .toBe(true);
}
