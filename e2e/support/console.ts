/** The call console as an agent opens it: log in and wait until the softphone is registered. */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';

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
 * The ringing view's answer button: 'Call' for a rung lead or a conference invitation,
 * 'Accept' for an inbound call or a transfer (spec section 2). Inside the ringing view, as the
 * waiting view's navigation has a Call button of its own.
 */
export function answerButton(page: Page, word: 'Accept' | 'Call'): Locator {
  return page
    .getByRole('region', { name: 'Incoming call' })
    .getByRole('button', { name: new RegExp(`^${word}`) });
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

/** The view a Call Result leads to (spec section 4, "Disposition choice"), by its heading. */
export type FollowUpView = 'Thank you!' | 'Tags & Stages' | 'Send SMS';

/**
 * Records `result` on the Call Result view, checks that the console goes to `then`, the view
 * the spec names for it (spec section 4: voicemail or missed with app-sms → Send SMS;
 * contacted on a profile flagged is_deal_whispertext → Tags & Stages; otherwise Thank you),
 * and goes back to waiting the quickest way: past that view (Tags & Stages: Skip; Send SMS:
 * Cancel), then Done.
 */
export async function recordResultAndFinish(
  page: Page,
  result: CallResult,
  then: FollowUpView,
): Promise<void> {
  await page.getByRole('button', { name: new RegExp(`^${result}`) }).click();
  const heading = (name: FollowUpView) => page.getByRole('heading', { name, exact: true });
  const shown = async (): Promise<FollowUpView | null> => {
    for (const name of ['Thank you!', 'Tags & Stages', 'Send SMS'] as const) {
      if (await heading(name).isVisible()) return name;
    }
    return null;
  };
  await expect.poll(shown, { timeout: 10_000 }).not.toBeNull();
  expect(await shown(), `${result} leads to ${then}`).toBe(then);
  if (then === 'Tags & Stages') await page.getByRole('button', { name: /^Skip/ }).click();
  if (then === 'Send SMS') await page.getByRole('button', { name: /^Cancel/ }).click();
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
