/**
 * Call quality shown (issue 35 item 5; spec section 9's warnings) through the started product:
 * agent1 (fake microphone 1000 Hz) takes a posted lead (the sandbox's 440 Hz).
 *
 * - A healthy call shows no quality notice and logs no warning, past the 5000 ms after which
 *   the softphone warns: the fake microphone's steady tone is sound, not a stuck input.
 * - The microphone goes silent (its track disabled: digital silence, as a microphone muted in
 *   hardware): 'No sound from your microphone' shows on the call, and goes once it sounds again.
 * - The microphone is taken off the call (the sender's track replaced by none: nothing goes
 *   out): 'Your voice is not getting through' shows, and goes once audio goes out again (the
 *   warning clears after 5000 ms of good samples).
 * - Copy Error Logs copies each warning raised and cleared, with the time.
 *
 * Screenshots of the on-call view with a notice at 360 and 1280 px; axe-core on the view.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { loopbackOnlyContext } from './support/browser';
import {
  answerButton,
  logInToConsole,
  recordResultAndFinish,
  screenshotsAtBothWidths,
} from './support/console';
import { consoleWorld } from './support/console-world';
import { seriousViolations } from './support/page-checks';

const AGENT_HZ = 1000;
const NO_MICROPHONE_SOUND = 'No sound from your microphone';
const NOT_GETTING_THROUGH = 'Your voice is not getting through';
/** Spec section 9: the softphone warns only this long into a call; a healthy call is watched past it. */
const HEALTHY_WATCH_S = 9;

const world = consoleWorld(AGENT_HZ);

/** What the init script keeps in the page. */
interface KeptPeers {
  __peers: RTCPeerConnection[];
  __heldTrack: MediaStreamTrack | null;
}

/** Makes the page keep every RTCPeerConnection it creates, so the test can reach the call's. */
async function keepPeerConnections(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as KeptPeers;
    w.__peers = [];
    w.__heldTrack = null;
    const Original = window.RTCPeerConnection;
    class Kept extends Original {
      constructor(configuration?: RTCConfiguration) {
        super(configuration);
        w.__peers.push(this);
      }
    }
    window.RTCPeerConnection = Kept;
  });
}

/** The microphone track the call sends sounds (`true`) or is silent (`false`, disabled). */
async function microphoneSounds(page: Page, sounds: boolean): Promise<void> {
  const changed = await page.evaluate((on) => {
    const pc = (window as unknown as KeptPeers).__peers.at(-1);
    const track = pc?.getSenders().find((s) => s.track?.kind === 'audio')?.track;
    if (!track) return false;
    track.enabled = on;
    return true;
  }, sounds);
  expect(changed, 'the call sends a microphone track').toBe(true);
}

/** Takes the microphone track off the call's sender (`false`), or puts it back (`true`). */
async function microphoneOnCall(page: Page, on: boolean): Promise<void> {
  const changed = await page.evaluate(async (on) => {
    const w = window as unknown as KeptPeers;
    const sender = w.__peers
      .at(-1)
      ?.getSenders()
      .find((s) => s.track?.kind !== 'video');
    if (!sender) return false;
    if (on) {
      if (!w.__heldTrack) return false;
      await sender.replaceTrack(w.__heldTrack);
      w.__heldTrack = null;
    } else {
      if (!sender.track) return false;
      w.__heldTrack = sender.track;
      await sender.replaceTrack(null);
    }
    return true;
  }, on);
  expect(changed, 'the call has a sender to change').toBe(true);
}

it('a warning on a live call shows its notice in plain words until it clears, and is logged; a healthy call shows none', async () => {
  const { context, foreignRequests } = await loopbackOnlyContext(world.browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: world.product.url,
  });
  const page = await context.newPage();
  await keepPeerConnections(page);
  // The console's error log is also written to the browser console (its sink).
  const logged: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') logged.push(message.text());
  });
  const qualityLines = () => logged.filter((line) => line.includes('call quality warning'));
  await logInToConsole(page, world.product.url, 'agent1@example.com');

  await world.postLead({ fname: 'Quinn', lname: 'Reyes', phone: '+15550100042' });
  await expect
    .poll(() => page.getByText('Incoming Lead!').isVisible(), { timeout: 15_000 })
    .toBe(true);
  await answerButton(page, 'Call').click();
  const onCall = page.getByRole('region', { name: 'On call' });
  const notices = onCall.getByRole('status', { name: 'Call quality' });
  const timer = onCall.getByRole('timer');
  await expect.poll(() => notices.count(), { timeout: 15_000 }).toBe(1);

  // Healthy: nothing shown or logged well past the first 5000 ms.
  const seconds = async () => {
    const [mm, ss] = ((await timer.textContent()) ?? '00:00').split(':').map(Number);
    return mm! * 60 + ss!;
  };
  let shownWhileHealthy = '';
  await expect
    .poll(
      async () => {
        shownWhileHealthy += (await notices.textContent()) ?? '';
        return seconds();
      },
      { timeout: 30_000, interval: 250 },
    )
    .toBeGreaterThanOrEqual(HEALTHY_WATCH_S);
  expect(shownWhileHealthy).toBe('');
  expect(qualityLines()).toEqual([]);

  // The microphone goes silent: the notice comes, in plain words, without blocking anything.
  await microphoneSounds(page, false);
  await expect.poll(() => notices.textContent(), { timeout: 15_000 }).toBe(NO_MICROPHONE_SOUND);
  expect(await onCall.getByRole('button', { name: /^Hang Up/ }).isEnabled()).toBe(true);
  await screenshotsAtBothWidths(page, world.product.dataDir, 'call-quality-notice');
  expect(await seriousViolations(page)).toEqual([]);
  // It sounds again: the notice goes.
  await microphoneSounds(page, true);
  await expect.poll(() => notices.textContent(), { timeout: 15_000 }).toBe('');

  // Nothing goes out: the sending notice comes, and goes once the audio is back.
  await microphoneOnCall(page, false);
  await expect.poll(() => notices.textContent(), { timeout: 20_000 }).toBe(NOT_GETTING_THROUGH);
  await microphoneOnCall(page, true);
  await expect.poll(() => notices.textContent(), { timeout: 30_000 }).toBe('');
  expect(await onCall.isVisible()).toBe(true);

  await onCall.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Remove', 'Thank you!');

  // Copy Error Logs: each warning raised and cleared, in order, with the time.
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.accept();
  });
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'Settings' })
    .click();
  await page
    .getByRole('region', { name: 'Settings' })
    .getByRole('button', { name: 'Copy Error Logs' })
    .click();
  await expect.poll(() => alerts).toEqual(['Copied error logs to clipboard!']);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const stamp = String.raw`\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] `;
  expect(copied.split('\n').filter((line) => line.includes('call quality warning'))).toEqual([
    expect.stringMatching(
      new RegExp(
        `^${stamp}call quality warning raised: constant-audio-input-level, "${NO_MICROPHONE_SOUND}"$`,
      ),
    ),
    expect.stringMatching(
      new RegExp(`^${stamp}call quality warning cleared: constant-audio-input-level$`),
    ),
    expect.stringMatching(
      new RegExp(
        `^${stamp}call quality warning raised: low-bytes-sent, "${NOT_GETTING_THROUGH}" \\(min 1; values 0, 0, 0\\)$`,
      ),
    ),
    expect.stringMatching(new RegExp(`^${stamp}call quality warning cleared: low-bytes-sent$`)),
  ]);
  expect(foreignRequests).toEqual([]);
  await context.close();
}, 120_000);
