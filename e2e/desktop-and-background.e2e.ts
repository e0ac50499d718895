/**
 * Reaching the agent through the started product in Chromium:
 * - in the desktop wrapper (an Electron user agent) a ringing lead is signalled to the wrapper
 *   (`window.postMessage` with source 'leadline') and outbound calls say `interface: desktop`;
 * - a console that is not in front of the agent (another tab has the focus) raises a browser
 *   Notification for an incoming lead, and clicking it brings the console back to the front;
 * - with Chromium's own autoplay policy (not the e2e flag that lets every page play) a console
 *   opened afresh, with no click in it, raises no false "sound blocked" alarm, and the ringtone
 *   of the next lead plays, on the Ringer device chosen in Settings, and stops on Accept.
 *
 * Headless Chromium keeps every tab visible, so "not in view" is shown with the focus: the same
 * check (`document.visibilityState` and `document.hasFocus()`) covers a hidden tab.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { launchChromium, toneWav } from './support/browser';
import { answerButton, logInToConsole, recordResultAndFinish } from './support/console';
import { consoleWorld } from './support/console-world';
import { letAudioFlow } from './support/softphone-page';
import { auditViews } from './support/view-audit';

/** apps/web: how long the console's autoplay check waits for an AudioContext to start. */
const AUTOPLAY_PROBE_WAIT_MS = 1000;

const AGENT_HZ = 1000;
const ELECTRON_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) leadline-desktop/1.9.9 Chrome/156.0.0.0 Electron/39.0.0 Safari/537.36';
/** A sandbox number that answers (docs/sandbox-numbers.md). */
const ANSWERING_NUMBER = '+15550100096';

const world = consoleWorld(AGENT_HZ);

async function postLead(fname: string, phone: string): Promise<void> {
  await world.postLead({ fname, phone });
}

const ringing = (page: Page) => answerButton(page, 'Call');

/** Accepts the ringing lead, hangs up and records Remove: the agent is ready again. */
async function answerAndFinish(page: Page): Promise<void> {
  await ringing(page).click();
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Remove', 'Thank you!');
}

it('the desktop wrapper: a ringing lead is signalled to it; outbound calls say interface desktop', async () => {
  const context = await world.browser.newContext({ userAgent: ELECTRON_USER_AGENT });
  await auditViews(context);
  const page = await context.newPage();
  await page.addInitScript(() => {
    const messages: unknown[] = [];
    Object.assign(window, { desktopMessages: messages });
    window.addEventListener('message', (event: MessageEvent<{ source?: string }>) => {
      if (event.data?.source === 'leadline') messages.push(event.data);
    });
  });
  await logInToConsole(page, world.product.url, 'agent1@example.com');

  await postLead('Desk', '+15550100093');
  await ringing(page).waitFor({ timeout: 15_000 });
  const signalled = () =>
    page.evaluate(() => (window as unknown as { desktopMessages: unknown[] }).desktopMessages);
  await expect.poll(async () => (await signalled()).length).toBe(1);
  const [message] = (await signalled()) as {
    source: string;
    type: string;
    call: { banner: string; leadName: string; phoneNumber: string };
  }[];
  expect(message).toMatchObject({
    source: 'leadline',
    type: 'incoming-call',
    call: { banner: 'Incoming Lead!', leadName: 'Desk Lead' },
  });
  expect(message!.call.phoneNumber).toMatch(/555.*010.*0093/);
  await answerAndFinish(page);

  await page.getByRole('button', { name: 'Call', exact: true }).click();
  const panel = page.getByRole('region', { name: 'New Call' });
  await panel.getByRole('textbox', { name: 'Phone Number' }).pressSequentially(ANSWERING_NUMBER);
  const posted = page.waitForRequest(
    (req) => req.method() === 'POST' && req.url().endsWith('/api/v1/calls/twilio/outbound'),
  );
  await panel.getByRole('button', { name: /^Call Now/ }).click();
  expect((await posted).postDataJSON()).toMatchObject({
    phone_number: ANSWERING_NUMBER,
    interface: 'desktop',
  });
  // Hung up at once, while dialing: the server withdraws the call then (not at its 30 s
  // connect timeout), so the next test's lead rings this agent straight away.
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Remove', 'Thank you!');
  await context.close();
}, 120_000);

it('a console out of view gets a Notification for an incoming lead; clicking it brings the console forward', async () => {
  const context = await world.browser.newContext({ permissions: ['notifications'] });
  await auditViews(context);
  const page = await context.newPage();
  await page.addInitScript(() => {
    // The real Notification, recorded: what was shown, and whether the console closed it.
    const Real = window.Notification;
    const shown: { title: string; body: string; closed: boolean; notification: Notification }[] =
      [];
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push({ title, body: options?.body ?? '', closed: false, notification: this });
      }
      override close(): void {
        const entry = shown.find((item) => item.notification === this);
        if (entry) entry.closed = true;
        super.close();
      }
    }
    // window.focus, counted: headless Chromium does not switch tabs for it, so the test sees the
    // console ask for the front rather than get it.
    const focus = window.focus.bind(window);
    const focusCalls = { count: 0 };
    window.focus = () => {
      focusCalls.count += 1;
      focus();
    };
    Object.assign(window, { Notification: Recorded, shownNotifications: shown, focusCalls });
  });
  await logInToConsole(page, world.product.url, 'agent1@example.com');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page
    .getByText('A notification shows when a lead rings while this tab is not in view.')
    .waitFor();
  await page.getByRole('button', { name: 'Close' }).click();

  // Another tab takes the front; with the focus no longer emulated the console loses it.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  const other = await context.newPage();
  await other.goto(`${world.product.url}/healthz`);
  await other.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);

  await postLead('Notified', '+15550100094');
  await ringing(page).waitFor({ timeout: 20_000 });
  type Shown = { title: string; body: string; closed: boolean };
  const shown = () =>
    page.evaluate(() =>
      (window as unknown as { shownNotifications: Shown[] }).shownNotifications.map(
        ({ title, body, closed }) => ({ title, body, closed }),
      ),
    );
  await expect.poll(async () => (await shown()).length, { timeout: 15_000 }).toBe(1);
  const [notification] = await shown();
  expect(notification).toMatchObject({ title: 'Incoming Lead!', closed: false });
  expect(notification!.body).toContain('Notified Lead');

  // The agent clicks the notification: the console asks for its window and tab to come forward.
  await page.evaluate(() =>
    (
      window as unknown as { shownNotifications: { notification: Notification }[] }
    ).shownNotifications[0]!.notification.dispatchEvent(new Event('click')),
  );
  expect(
    await page.evaluate(() => (window as unknown as { focusCalls: { count: number } }).focusCalls),
  ).toEqual({ count: 1 });
  await expect.poll(async () => (await shown())[0]?.closed).toBe(true);
  await answerAndFinish(page);
  await context.close();
}, 120_000);

/** A sound file the page played (not call audio, which is a stream): where, and whether it did. */
interface SoundPlay {
  src: string;
  sinkId: string;
  outcome: string;
  element: HTMLMediaElement;
}

/** Init script: records every sound file the page plays in `window.soundPlays`. */
function recordSoundPlays(): void {
  const plays: SoundPlay[] = [];
  const play = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'play')!.value as (
    this: HTMLMediaElement,
  ) => Promise<void>;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    const started = play.call(this);
    if (!this.src) return started;
    const entry: SoundPlay = {
      src: this.src,
      sinkId: (this as HTMLAudioElement & { sinkId: string }).sinkId,
      outcome: 'pending',
      element: this,
    };
    plays.push(entry);
    started.then(
      () => (entry.outcome = 'playing'),
      (error: Error) => (entry.outcome = `refused: ${error.name}`),
    );
    return started;
  };
  Object.assign(window, { soundPlays: plays });
}

it("with Chromium's own autoplay policy, a console opened afresh rings audibly: the ringtone plays on the chosen Ringer and stops on Accept", async () => {
  const strict = await launchChromium(await toneWav(AGENT_HZ), { autoplayNeedsGesture: true });
  try {
    const context = await strict.newContext();
    await auditViews(context);
    const page = await context.newPage();
    await logInToConsole(page, world.product.url, 'agent1@example.com');
    // Chromium lets a page that was clicked play sound after a same-site reload (the login's),
    // so the agent comes back the way that meets the block: the signed-in console opened afresh
    // in a new browser session (its cookie kept), with no click in it yet.
    const session = await context.storageState();
    await context.close();
    const fresh = await strict.newContext({ storageState: session });
    await auditViews(fresh);
    await fresh.addInitScript(recordSoundPlays);
    const agent = await fresh.newPage();
    await agent.goto(world.product.url);
    await agent.getByText('Waiting for lead...').waitFor({ timeout: 20_000 });
    // Chromium lets this console play sound without a click (a page that uses the microphone
    // may; the phone opened it when it registered): the console reads the real policy and does
    // not cry wolf. (The blocked case, its notice and Turn on sound: views/attention.test.tsx.)
    await agent.getByText('Phone ready').waitFor({ timeout: 20_000 });
    await letAudioFlow(AUTOPLAY_PROBE_WAIT_MS * 2);
    expect(await agent.getByText('Your browser is blocking sound').count()).toBe(0);

    await agent.getByRole('button', { name: 'Settings' }).click();
    const ringer = agent.getByRole('combobox', { name: 'Ringer' });
    const second = ringer.locator('option', { hasText: 'Fake Audio Output 2' });
    await second.waitFor({ state: 'attached', timeout: 15_000 });
    const ringerId = await second.getAttribute('value');
    expect(ringerId).toBeTruthy();
    await ringer.selectOption(ringerId ?? '');
    await agent.getByRole('button', { name: 'Close' }).click();

    await postLead('Ringer', '+15550100095');
    await ringing(agent).waitFor({ timeout: 15_000 });
    type Play = { src: string; sinkId: string; outcome: string; paused: boolean };
    const ringtones = () =>
      agent.evaluate(() =>
        (window as unknown as { soundPlays: SoundPlay[] }).soundPlays
          .filter((play) => play.src.includes('/sounds/incoming'))
          .map((play): Play => ({
            src: play.src,
            sinkId: (play.element as HTMLAudioElement & { sinkId: string }).sinkId,
            outcome: play.outcome,
            paused: play.element.paused,
          })),
      );
    await expect
      .poll(ringtones, { timeout: 10_000 })
      .toEqual([expect.objectContaining({ sinkId: ringerId, outcome: 'playing', paused: false })]);
    await ringing(agent).click();
    await expect.poll(async () => (await ringtones())[0]?.paused).toBe(true);
    await agent.getByRole('button', { name: /^Hang Up/ }).click();
    await recordResultAndFinish(agent, 'Remove', 'Thank you!');
    await fresh.close();
  } finally {
    await strict.close();
  }
}, 120_000);
