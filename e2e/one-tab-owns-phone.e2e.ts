/**
 * One tab owns the phone, in Chromium against the started product: agent1 has two console tabs
 * in one browser. Only the owning tab registers and rings; the other shows the owner's state and
 * never asks for the microphone nor opens the signalling socket. Closing the owning tab moves
 * the phone to the other, which then rings for the next lead and hears it. "Use phone here"
 * takes the phone with one click (the former owner follows); logging out in the owning tab
 * sends the other to the login view.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { captureRemoteAudio, loopbackOnlyContext } from './support/browser';
import {
  answerButton,
  logInToConsole,
  recordResultAndFinish,
  screenshotsAtBothWidths,
} from './support/console';
import { seriousViolations } from './support/page-checks';
import { consoleWorld } from './support/console-world';
import { heardTones, remoteToneLevels } from './support/remote-tones';

const LEAD_HZ = 440;
const AGENT_HZ = 1000;
const AGENT = 'agent1@example.com';

const world = consoleWorld(AGENT_HZ);

/** What {@link watchTab} records in the page. */
interface TabWatch {
  /** How many times the page called `getUserMedia`. */
  __microphoneRequests: number;
  /** Whether the page ever showed 'Incoming Lead!'. */
  __rang: boolean;
}

/** A console tab and what it did: its WebSockets, its microphone requests, whether it rang. */
interface Tab {
  readonly page: Page;
  /** The WebSockets the page opened (the softphone's signalling is its only one). */
  readonly sockets: string[];
  microphoneRequests(): Promise<number>;
  rang(): Promise<boolean>;
}

/** Opens a tab of the context, recording what it does (see {@link Tab}). */
async function openTab(context: Awaited<ReturnType<typeof loopbackOnlyContext>>['context']) {
  const page = await context.newPage();
  await page.addInitScript(() => {
    const watch = window as unknown as TabWatch;
    watch.__microphoneRequests = 0;
    watch.__rang = false;
    const media = navigator.mediaDevices;
    const original = media.getUserMedia.bind(media);
    media.getUserMedia = (constraints) => {
      watch.__microphoneRequests += 1;
      return original(constraints);
    };
    new MutationObserver(() => {
      if (document.body?.textContent?.includes('Incoming Lead!')) watch.__rang = true;
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await captureRemoteAudio(page);
  const sockets: string[] = [];
  page.on('websocket', (socket) => sockets.push(socket.url()));
  const tab: Tab = {
    page,
    sockets,
    microphoneRequests: () =>
      page.evaluate(() => (window as unknown as TabWatch).__microphoneRequests),
    rang: () => page.evaluate(() => (window as unknown as TabWatch).__rang),
  };
  return tab;
}

/** Waits until `page` shows `text`. */
async function shows(page: Page, text: string, timeout = 15_000): Promise<void> {
  await expect
    .poll(() => page.getByText(text, { exact: true }).isVisible(), { timeout })
    .toBe(true);
}

/** Opens the console in a second tab of the signed-in context; it follows the owning tab. */
async function followerTab(
  context: Awaited<ReturnType<typeof loopbackOnlyContext>>['context'],
): Promise<Tab> {
  const tab = await openTab(context);
  await tab.page.goto(world.product.url);
  await shows(tab.page, 'Phone in another tab — Ready');
  return tab;
}

async function postLead(phone: string): Promise<void> {
  const posted = await world.postLead({ fname: 'Tab', phone });
  const { call } = (await posted.json()) as { call: { agent_id: number | null } };
  expect(call.agent_id).not.toBeNull();
}

/** Waits for the ringing lead in `page`, accepts it and waits until the call is on. */
async function acceptWhenRinging(page: Page): Promise<void> {
  await shows(page, 'Incoming Lead!');
  await answerButton(page, 'Call').click();
  await expect
    .poll(() => page.getByRole('button', { name: /^Hang Up/ }).isVisible(), { timeout: 15_000 })
    .toBe(true);
}

it('only the owning tab rings; closing it moves the phone to the other, which rings and hears the lead', async () => {
  const { context } = await loopbackOnlyContext(world.browser);
  const first = await openTab(context);
  await logInToConsole(first.page, world.product.url, AGENT);
  const second = await followerTab(context);
  expect(await second.page.getByRole('button', { name: 'Use phone here' }).isEnabled()).toBe(true);
  await screenshotsAtBothWidths(second.page, world.product.dataDir, 'phone-in-another-tab');
  expect(await seriousViolations(second.page)).toEqual([]);

  // A lead rings the owning tab only; the other shows it, then the call, then the wait again.
  await postLead('+15550100061');
  await shows(first.page, 'Incoming Lead!');
  await shows(second.page, 'Phone in another tab — Ringing');
  await acceptWhenRinging(first.page);
  await shows(second.page, 'Phone in another tab — On a call');
  await first.page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(first.page, 'Contacted', 'Tags & Stages');
  await shows(second.page, 'Phone in another tab — Ready');
  expect(await second.rang()).toBe(false);
  expect(await second.microphoneRequests()).toBe(0);
  // No signalling socket (its realtime socket keeps its lists live, as in every tab).
  expect(second.sockets.filter((url) => new URL(url).pathname === '/signal')).toEqual([]);
  expect(first.sockets.filter((url) => new URL(url).pathname === '/signal')).not.toEqual([]);
  // The counters do count: the owning tab asked for the microphone and rang.
  expect(await first.microphoneRequests()).toBeGreaterThan(0);
  expect(await first.rang()).toBe(true);

  // Closing the owning tab hands the phone over; the next lead rings there and is heard.
  await first.page.close();
  await shows(second.page, 'Phone ready');
  expect(await second.page.getByRole('button', { name: 'Use phone here' }).count()).toBe(0);
  await postLead('+15550100062');
  await acceptWhenRinging(second.page);
  await expect
    .poll(async () => heardTones(await remoteToneLevels(second.page, [LEAD_HZ, AGENT_HZ])), {
      timeout: 20_000,
    })
    .toEqual([LEAD_HZ]);
  await second.page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(second.page, 'Remove', 'Thank you!');
  await context.close();
}, 180_000);

it('"Use phone here" takes the phone with one click; logging out there logs the other tab out', async () => {
  const { context } = await loopbackOnlyContext(world.browser);
  const first = await openTab(context);
  await logInToConsole(first.page, world.product.url, AGENT);
  const second = await followerTab(context);

  await second.page.getByRole('button', { name: 'Use phone here' }).click();
  await shows(second.page, 'Phone ready');
  await shows(first.page, 'Phone in another tab — Ready');
  expect(await first.page.getByRole('button', { name: 'Use phone here' }).isEnabled()).toBe(true);

  // The next lead rings the new owner, not the former one.
  await postLead('+15550100063');
  await acceptWhenRinging(second.page);
  await shows(first.page, 'Phone in another tab — On a call');
  expect(await first.rang()).toBe(false);
  await second.page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(second.page, 'Remove', 'Thank you!');

  // Logging out in the owning tab: the session is gone, and the other tab shows the login view.
  await second.page.getByRole('button', { name: /^Alex Rivera/ }).click();
  await second.page.getByRole('button', { name: 'Log out', exact: true }).click();
  await expect
    .poll(() => first.page.getByRole('button', { name: 'Login' }).isVisible(), { timeout: 15_000 })
    .toBe(true);
  await context.close();
}, 180_000);
