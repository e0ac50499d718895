/**
 * The Settings panel through the started product (agent1, who has app-autoaccept): the audio
 * device selectors list Chromium's fake devices; Auto Accept ON makes the next lead connect
 * without a click (and the lead is heard), except on a profile that does not auto-answer (7703,
 * account 6671's agent); OFF again rings as usual. Screenshots at 360 and 1280 px with no serious
 * or critical axe-core violation.
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
import { leadHearing, sandboxCallOf, seriousViolations } from './support/page-checks';
import { consoleWorld } from './support/console-world';
import { letAudioFlow } from './support/softphone-page';
import { heardTones, remoteToneLevels } from './support/remote-tones';

const LEAD_HZ = 440;
const AGENT_HZ = 1000;
/** The tone of Chromium's second fake microphone in these pages (see `secondMicrophoneTone`). */
const SECOND_MIC_HZ = 1500;

const world = consoleWorld(AGENT_HZ);

async function agentConsole(): Promise<Page> {
  const { context } = await loopbackOnlyContext(world.browser);
  const page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, world.product.url, 'agent1@example.com');
  return page;
}

/**
 * Chromium feeds every fake microphone the same file, so a switch could not be heard: in this
 * page the second fake microphone ('Fake Audio Input 2') plays its own tone instead.
 */
async function secondMicrophoneTone(page: Page, toneHz: number): Promise<void> {
  await page.addInitScript((hz) => {
    const media = navigator.mediaDevices;
    const original = media.getUserMedia.bind(media);
    media.getUserMedia = async (constraints) => {
      const audio = constraints?.audio;
      const wanted = typeof audio === 'object' && audio !== null ? audio.deviceId : undefined;
      const id =
        typeof wanted === 'string'
          ? wanted
          : wanted && !Array.isArray(wanted) && typeof wanted === 'object'
            ? (wanted.exact as string | undefined)
            : undefined;
      if (id !== undefined) {
        const device = (await media.enumerateDevices()).find((d) => d.deviceId === id);
        if (device?.label === 'Fake Audio Input 2') {
          const context = new AudioContext();
          const tone = context.createOscillator();
          tone.frequency.value = hz;
          const level = context.createGain();
          level.gain.value = 0.5;
          const out = context.createMediaStreamDestination();
          tone.connect(level).connect(out);
          tone.start();
          await context.resume();
          return out.stream;
        }
      }
      return original(constraints);
    };
  }, toneHz);
}

/** Waits for the ringing lead and accepts it. */
async function acceptWhenRinging(page: Page): Promise<void> {
  const accept = answerButton(page, 'Call');
  await expect.poll(() => accept.isVisible(), { timeout: 15_000 }).toBe(true);
  await accept.click();
}

async function openSettings(page: Page) {
  await page
    .getByRole('navigation', { name: 'Console' })
    .getByRole('button', { name: 'Settings' })
    .click();
  return page.getByRole('region', { name: 'Settings' });
}

async function postLead(phone: string): Promise<void> {
  await world.postLead({ fname: 'Auto', phone });
}

it('lists the fake audio devices; Auto Accept ON connects the next lead without a click', async () => {
  const page = await agentConsole();
  const settings = await openSettings(page);
  const microphone = settings.getByRole('combobox', { name: 'Microphone' });
  // Chromium's fake devices: the default and two more inputs (labels once the page may use the
  // microphone; the registered softphone asked for it).
  await expect
    .poll(() => microphone.locator('option').allTextContents(), { timeout: 15_000 })
    .toEqual(expect.arrayContaining(['Fake Audio Input 1', 'Fake Audio Input 2']));
  const toggle = settings.getByRole('switch', { name: 'Auto Accept' });
  expect(await toggle.getAttribute('aria-checked')).toBe('false');
  await screenshotsAtBothWidths(page, world.product.dataDir, 'settings');
  expect(await seriousViolations(page)).toEqual([]);

  await toggle.click();
  await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
  await settings.getByRole('button', { name: 'Close' }).click();

  await postLead('+15550100091');
  // On the call without a click, hearing the lead.
  await expect
    .poll(() => page.getByRole('region', { name: 'On call' }).isVisible(), { timeout: 15_000 })
    .toBe(true);
  await expect
    .poll(async () => heardTones(await remoteToneLevels(page, [LEAD_HZ, AGENT_HZ])), {
      timeout: 20_000,
    })
    .toEqual([LEAD_HZ]);
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Remove', 'Thank you!');

  // OFF again: the next lead rings and waits for Accept.
  const again = await openSettings(page);
  await again.getByRole('switch', { name: 'Auto Accept' }).click();
  await expect
    .poll(() => again.getByRole('switch', { name: 'Auto Accept' }).getAttribute('aria-checked'))
    .toBe('false');
  await again.getByRole('button', { name: 'Close' }).click();
  await postLead('+15550100092');
  await expect.poll(() => answerButton(page, 'Call').isVisible(), { timeout: 15_000 }).toBe(true);
  expect(await page.getByRole('region', { name: 'On call' }).isVisible()).toBe(false);
  await page.context().close();
}, 120_000);

it('Auto Accept ON does not answer a lead on a profile with auto-answer off (7703)', async () => {
  // agent@a6671 has app-autoaccept; account 6671's profile is 7703, seeded not to auto-answer.
  const { context } = await loopbackOnlyContext(world.browser);
  const page = await context.newPage();
  await captureRemoteAudio(page);
  await logInToConsole(page, world.product.url, 'agent@a6671.example.com');
  const settings = await openSettings(page);
  const toggle = settings.getByRole('switch', { name: 'Auto Accept' });
  await toggle.click();
  await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
  await settings.getByRole('button', { name: 'Close' }).click();

  // The demo API key posts leads to the demo account only: this account's lead is rung to its
  // agent by a Retry (a lead call offered first to the agent who asks), on the account's profile.
  const phone = '+15550100095';
  const callUser = page.waitForResponse((response) =>
    /^\/api\/v1\/callusers\/\d+$/.test(new URL(response.url()).pathname),
  );
  const session = await context.request.get(`${world.product.url}/api/v1/user?time=${Date.now()}`);
  const { csrf_token: csrf } = (await session.json()) as { csrf_token: string };
  const retry = await context.request.post(`${world.product.url}/api/v1/calls/twilio`, {
    headers: { 'x-csrf-token': csrf },
    data: { fname: 'Casey', lname: 'Callback', phone_number: phone },
  });
  expect(await retry.json()).toMatchObject({ success: true });
  // The console was told to auto-accept, and that the call's profile does not auto-answer.
  expect(await (await callUser).json()).toMatchObject({
    autoaccept: true,
    call: { profile: { id: 7703, auto_answer: false } },
  });

  // It rings and waits for Accept: not on the call, and the lead not dialled (it is dialled when
  // the agent accepts).
  const accept = answerButton(page, 'Call');
  await expect.poll(() => accept.isVisible(), { timeout: 15_000 }).toBe(true);
  expect(await page.getByRole('status', { name: 'Call status' }).textContent()).toBe(
    'Incoming Lead!',
  );
  expect(await page.getByRole('region', { name: 'On call' }).isVisible()).toBe(false);
  expect(await sandboxCallOf(page, world.product.url, phone)).toBeUndefined();

  // Accept connects it: on the call, hearing the lead.
  await accept.click();
  await expect
    .poll(() => page.getByRole('region', { name: 'On call' }).isVisible(), { timeout: 15_000 })
    .toBe(true);
  await expect
    .poll(async () => heardTones(await remoteToneLevels(page, [LEAD_HZ, AGENT_HZ])), {
      timeout: 20_000,
    })
    .toEqual([LEAD_HZ]);
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await recordResultAndFinish(page, 'Remove', 'Thank you!');
  await context.close();
}, 120_000);

it('a microphone chosen mid-call is heard by the lead at once, and remembered', async () => {
  const { context } = await loopbackOnlyContext(world.browser);
  const page = await context.newPage();
  await secondMicrophoneTone(page, SECOND_MIC_HZ);
  await captureRemoteAudio(page);
  await logInToConsole(page, world.product.url, 'agent1@example.com');
  const phone = '+15550100093';
  await postLead(phone);
  await acceptWhenRinging(page);
  await expect
    .poll(async () => heardTones(await remoteToneLevels(page, [LEAD_HZ, AGENT_HZ])), {
      timeout: 20_000,
    })
    .toEqual([LEAD_HZ]);
  // Let the lead hear the first microphone a while.
  await letAudioFlow(1_500);
  const beforeTo = Date.now();

  const onCall = page.getByRole('region', { name: 'On call' });
  await onCall.getByRole('button', { name: /^Audio/ }).click();
  const microphone = onCall.getByRole('combobox', { name: 'Microphone' });
  await microphone.selectOption({ label: 'Fake Audio Input 2' });
  await expect
    .poll(() => microphone.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text))
    .toBe('Fake Audio Input 2');
  const afterFrom = Date.now();
  // Let the lead hear the second microphone a while.
  await letAudioFlow(2_000);
  const afterTo = Date.now();
  await screenshotsAtBothWidths(page, world.product.dataDir, 'on-call-audio');
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: /^Hang Up/ }).click();

  const heard = await leadHearing(page, world.product, phone, [AGENT_HZ, SECOND_MIC_HZ]);
  expect(heard(beforeTo - 1_000, beforeTo)).toEqual([AGENT_HZ]);
  expect(heard(afterFrom + 500, afterTo)).toEqual([SECOND_MIC_HZ]);
  // Remembered in this browser for the next page.
  expect(await page.evaluate(() => localStorage.getItem('leadline.audio.input'))).not.toBeNull();
  await recordResultAndFinish(page, 'Remove', 'Thank you!');
  await context.close();
}, 120_000);

it('Copy Error Logs puts the timestamped log on the clipboard and says so', async () => {
  const { context } = await loopbackOnlyContext(world.browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: world.product.url,
  });
  const page = await context.newPage();
  await logInToConsole(page, world.product.url, 'agent1@example.com');
  const settings = await openSettings(page);
  // No logs yet: no button.
  expect(await settings.getByRole('button', { name: 'Copy Error Logs' }).count()).toBe(0);
  await settings.getByRole('button', { name: 'Close' }).click();

  // A Retry while the network is down fails and is logged.
  const phone = '+15550100094';
  await postLead(phone);
  await acceptWhenRinging(page);
  await expect
    .poll(() => page.getByRole('button', { name: /^Hang Up/ }).isVisible(), { timeout: 15_000 })
    .toBe(true);
  await page.getByRole('button', { name: /^Hang Up/ }).click();
  await context.setOffline(true);
  await page.getByRole('button', { name: /^Retry/ }).click();
  await expect
    .poll(() => page.getByText('Cannot reach the server').first().isVisible(), { timeout: 10_000 })
    .toBe(true);
  await context.setOffline(false);
  await expect
    .poll(() => page.getByText('Phone ready').isVisible(), { timeout: 30_000 })
    .toBe(true);

  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.accept();
  });
  const again = await openSettings(page);
  await again.getByRole('button', { name: 'Copy Error Logs' }).click();
  await expect.poll(() => alerts).toEqual(['Copied error logs to clipboard!']);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] retrying lead \d+ failed: /m);
  await context.close();
}, 120_000);
