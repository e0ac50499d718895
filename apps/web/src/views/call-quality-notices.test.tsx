/**
 * Call quality notices in the whole console (fake server, phone and browser; issue 35 item 5):
 * while the softphone's warning stands the on-call view says so in plain words, one line per
 * kind, without taking the focus or blocking a control; it goes when the warning clears, and
 * the error log Copy Error Logs copies has a line for the warning raised and cleared.
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  CALL_USER_UNDER_TEST,
  consoleUnderTest,
  findAnswerButton,
} from '../test-support/console-under-test';

const POOR_CONNECTION = 'Poor connection: audio may break up';
const NO_MICROPHONE_SOUND = 'No sound from your microphone';
const NOT_GETTING_THROUGH = 'Your voice is not getting through';

/** The console on an answered call; `call` is the fake phone's call. */
async function onACall() {
  const world = await consoleUnderTest([]);
  let call!: ReturnType<typeof world.phone.device.ring>;
  act(() => void (call = world.phone.device.ring(CALL_USER_UNDER_TEST)));
  await world.user.click(await findAnswerButton('Call'));
  const onCall = await screen.findByRole('region', { name: 'On call' });
  const notices = () => within(onCall).getByRole('status', { name: 'Call quality' });
  return { ...world, call, onCall, notices };
}

describe('call quality notices on a call', () => {
  it('a warning shows its words while it stands and goes when it clears; one notice per kind', async () => {
    const { call, onCall, notices } = await onACall();
    expect(notices()).toBeEmptyDOMElement();
    const focused = document.activeElement;

    act(() => call.raiseWarning('high-jitter', { threshold: { name: 'max', value: 30 } }));
    expect(within(notices()).getByText(POOR_CONNECTION)).toBeVisible();
    // Non-blocking: the focus stays where it was and every control still works.
    expect(document.activeElement).toBe(focused);
    expect(within(onCall).getByRole('button', { name: /^Mute/ })).toBeEnabled();
    expect(within(onCall).getByRole('button', { name: /^Hang Up/ })).toBeEnabled();

    // A second network warning: still one line.
    act(() => call.raiseWarning('high-packet-loss'));
    expect(within(notices()).getAllByText(POOR_CONNECTION)).toHaveLength(1);
    act(() => call.clearWarning('high-jitter'));
    expect(within(notices()).getByText(POOR_CONNECTION)).toBeVisible();
    act(() => call.clearWarning('high-packet-loss'));
    expect(notices()).toBeEmptyDOMElement();
    expect(screen.queryByText(POOR_CONNECTION)).toBeNull();
  });

  it('warnings of different kinds each show their own line', async () => {
    const { call, notices } = await onACall();
    act(() => {
      call.raiseWarning('constant-audio-input-level');
      call.raiseWarning('low-bytes-sent');
      call.raiseWarning('low-mos');
    });
    expect(
      within(notices())
        .getAllByText(/./)
        .map((line) => line.textContent),
    ).toEqual([NO_MICROPHONE_SOUND, NOT_GETTING_THROUGH, POOR_CONNECTION]);
    act(() => call.clearWarning('low-bytes-sent'));
    expect(screen.queryByText(NOT_GETTING_THROUGH)).toBeNull();
    expect(within(notices()).getByText(NO_MICROPHONE_SOUND)).toBeVisible();
  });

  it("the microphone's notice is not shown while the agent has muted it", async () => {
    const { call, onCall, notices, user } = await onACall();
    act(() => call.raiseWarning('constant-audio-input-level'));
    expect(within(notices()).getByText(NO_MICROPHONE_SOUND)).toBeVisible();
    await user.click(within(onCall).getByRole('button', { name: /^Mute/ }));
    await waitFor(() => expect(notices()).toBeEmptyDOMElement());
    await user.click(within(onCall).getByRole('button', { name: /^Muted/ }));
    expect(within(notices()).getByText(NO_MICROPHONE_SOUND)).toBeVisible();
  });

  it('a warning standing when the call ends is gone from the next call', async () => {
    const { call, user, phone } = await onACall();
    act(() => call.raiseWarning('high-rtt'));
    expect(screen.getByText(POOR_CONNECTION)).toBeVisible();
    await user.click(screen.getByRole('button', { name: /^Hang Up/ }));
    await user.click(await screen.findByRole('button', { name: /^Remove/ }));
    await user.click(await screen.findByRole('button', { name: /^Done/ }));
    await screen.findByRole('heading', { name: 'Waiting for lead...' });
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST));
    await user.click(await findAnswerButton('Call'));
    const next = await screen.findByRole('region', { name: 'On call' });
    expect(within(next).getByRole('status', { name: 'Call quality' })).toBeEmptyDOMElement();
  });

  it('Copy Error Logs copies the warning raised and cleared, with the time', async () => {
    const { call, user, platform, nav } = await onACall();
    act(() =>
      call.raiseWarning('low-bytes-sent', {
        threshold: { name: 'min', value: 1 },
        values: [0, 0, 0],
      }),
    );
    act(() => call.clearWarning('low-bytes-sent'));
    await user.click(screen.getByRole('button', { name: /^Hang Up/ }));
    await user.click(await screen.findByRole('button', { name: /^Remove/ }));
    await user.click(await screen.findByRole('button', { name: /^Done/ }));
    await user.click(await nav().findByRole('button', { name: 'Settings' }));
    await user.click(await screen.findByRole('button', { name: 'Copy Error Logs' }));
    await waitFor(() => expect(platform.copied).toHaveLength(1));
    expect(platform.copied[0]!.split('\n')).toEqual([
      '[2025-01-06T09:00:00.000Z] call quality warning raised: low-bytes-sent, "Your voice is not getting through" (min 1; values 0, 0, 0)',
      '[2025-01-06T09:00:00.000Z] call quality warning cleared: low-bytes-sent',
    ]);
  });
});
