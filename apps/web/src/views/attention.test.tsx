/**
 * Reaching an agent who is not looking, in the whole app (fake server, phone and browser): a lead
 * that rings while the page is out of view raises a notification whose click brings the console
 * forward; the desktop wrapper is told about every ringing call and its outbound calls say
 * `interface: desktop`; a browser that blocks sound is announced before the first call with a
 * one-click unlock; Settings asks for notifications only from its button and offers the tel:
 * handler.
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { demoCallUser } from '../test-support/fake-api';
import {
  NOTIFICATIONS_BLOCKED_TEXT,
  NOTIFICATIONS_ON_TEXT,
  SOUND_BLOCKED_TEXT,
  TEL_HANDLER_ASKED_TEXT,
} from '../constants';
import {
  CALL_USER_UNDER_TEST,
  consoleUnderTest,
  findAnswerButton,
} from '../test-support/console-under-test';

describe('a lead ringing while the console is out of view', () => {
  it('raises a notification (with the lead) whose click focuses the console; it closes once answered', async () => {
    const { phone, platform, user } = await consoleUnderTest([], demoCallUser(), {
      attention: { permission: 'granted' },
    });
    const { attention } = platform;
    attention.setInView(false);
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST));
    await findAnswerButton('Call');
    expect(attention.shown).toHaveLength(1);
    const [notification] = attention.shown;
    expect(notification).toMatchObject({
      title: 'Incoming Lead!',
      body: 'Maya Okafor · +1 555 010 0142',
      closed: false,
    });
    notification!.click();
    expect(attention.focusCount).toBe(1);
    await user.click(screen.getByRole('button', { name: 'Call' }));
    await screen.findByRole('button', { name: 'Hang Up' });
    expect(notification!.closed).toBe(true);
  });

  it('closes the notification when the caller gives up', async () => {
    const { phone, platform } = await consoleUnderTest([], demoCallUser(), {
      attention: { permission: 'granted' },
    });
    platform.attention.setInView(false);
    let call!: ReturnType<typeof phone.device.ring>;
    act(() => void (call = phone.device.ring(CALL_USER_UNDER_TEST)));
    await findAnswerButton('Call');
    act(() => call.cancelByCaller());
    await screen.findByRole('heading', { name: 'Waiting for lead...' });
    expect(platform.attention.shown.map((shown) => shown.closed)).toEqual([true]);
  });

  it.each([
    { case: 'in view', inView: true, permission: 'granted' as const },
    { case: 'not allowed yet', inView: false, permission: 'default' as const },
    { case: 'blocked', inView: false, permission: 'denied' as const },
  ])('shows no notification when $case', async ({ inView, permission }) => {
    const { phone, platform } = await consoleUnderTest([], demoCallUser(), {
      attention: { permission },
    });
    platform.attention.setInView(inView);
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST));
    await findAnswerButton('Call');
    expect(platform.attention.shown).toEqual([]);
    // Never asked on its own: only the Settings button asks.
    expect(platform.attention.permissionRequests).toBe(0);
  });
});

describe('the desktop wrapper', () => {
  it('is told about each ringing call', async () => {
    const { phone, platform, user } = await consoleUnderTest([], demoCallUser(), {
      attention: { desktop: true },
    });
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST, { callSid: 'CA-desktop-1' }));
    await user.click(await findAnswerButton('Call'));
    expect(platform.attention.desktopSignals).toEqual([
      {
        banner: 'Incoming Lead!',
        callSid: 'CA-desktop-1',
        leadName: 'Maya Okafor',
        phoneNumber: '+1 555 010 0142',
      },
    ]);
  });

  it('outside the wrapper nothing is signalled', async () => {
    const { phone, platform } = await consoleUnderTest([]);
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST));
    await findAnswerButton('Call');
    expect(platform.attention.desktopSignals).toEqual([]);
  });
});

describe('sound blocked by the browser (autoplay policy)', () => {
  it('says so before the first call; one click on Turn on sound lifts it', async () => {
    const { platform, user } = await consoleUnderTest([], demoCallUser(), {
      attention: { sound: 'blocked' },
    });
    const notice = await screen.findByRole('alert');
    expect(notice).toHaveTextContent(SOUND_BLOCKED_TEXT);
    await user.click(within(notice).getByRole('button', { name: 'Turn on sound' }));
    await waitFor(() => expect(screen.queryByText(SOUND_BLOCKED_TEXT)).toBeNull());
    await expect(platform.attention.sound.state()).resolves.toBe('allowed');
  });

  it('goes away by itself once any interaction lifted the block', async () => {
    const { platform } = await consoleUnderTest([], demoCallUser(), {
      attention: { sound: 'blocked' },
    });
    await screen.findByText(SOUND_BLOCKED_TEXT);
    // A click that did not lift it (the policy still says blocked) keeps the line.
    act(() => platform.attention.interact());
    expect(screen.getByText(SOUND_BLOCKED_TEXT)).toBeVisible();
    platform.attention.setSound('allowed');
    act(() => platform.attention.interact());
    await waitFor(() => expect(screen.queryByText(SOUND_BLOCKED_TEXT)).toBeNull());
  });

  it('shows nothing when sound is allowed', async () => {
    await consoleUnderTest([]);
    expect(screen.queryByText(SOUND_BLOCKED_TEXT)).toBeNull();
  });
});

describe('Settings: notifications and tel: links', () => {
  async function openSettings(options: Parameters<typeof consoleUnderTest>[2]) {
    const under = await consoleUnderTest([], demoCallUser(), options);
    await under.user.click(under.nav().getByRole('button', { name: 'Settings' }));
    return { ...under, panel: screen.getByRole('region', { name: 'Settings' }) };
  }

  it('asks for notifications only from its button, once', async () => {
    const { platform, user, panel } = await openSettings({ attention: { permission: 'default' } });
    expect(platform.attention.permissionRequests).toBe(0);
    await user.click(within(panel).getByRole('button', { name: 'Turn on notifications' }));
    await within(panel).findByText(NOTIFICATIONS_ON_TEXT);
    expect(within(panel).queryByRole('button', { name: 'Turn on notifications' })).toBeNull();
    expect(platform.attention.permissionRequests).toBe(1);
  });

  it('says how to undo a block instead of asking again', async () => {
    const { user, panel } = await openSettings({
      attention: { permission: 'default', promptAnswer: 'denied' },
    });
    await user.click(within(panel).getByRole('button', { name: 'Turn on notifications' }));
    await within(panel).findByText(NOTIFICATIONS_BLOCKED_TEXT);
    expect(within(panel).queryByRole('button', { name: 'Turn on notifications' })).toBeNull();
  });

  it('registers Leadline for tel: links with the ?url=tel:/ form', async () => {
    const { platform, user, panel } = await openSettings({});
    await user.click(within(panel).getByRole('button', { name: 'Open tel: links here' }));
    expect(platform.attention.telHandlers).toEqual(['/?url=tel:/%s']);
    expect(within(panel).getByText(TEL_HANDLER_ASKED_TEXT)).toBeVisible();
  });

  it('offers no tel: button where the browser cannot register handlers', async () => {
    const { panel } = await openSettings({ attention: { protocolHandlers: false } });
    expect(within(panel).queryByRole('button', { name: 'Open tel: links here' })).toBeNull();
  });
});
