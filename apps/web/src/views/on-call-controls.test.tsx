/**
 * The on-call controls (spec section 2) in the whole app, with the fake server and phone: which
 * buttons each kind of call shows and enables, Hold/Resume through the server, and the keypad.
 */
import type { CallType, CallUserResponse } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone, type FakeCall } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { findAnswerButton } from '../test-support/console-under-test';

const CALL_USER = 42;
const CALL_ID = 9001;

async function onCall(callUser: CallUserResponse = demoCallUser()) {
  const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
  server.addCallUser(CALL_USER, callUser);
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  let call: FakeCall | undefined;
  act(() => {
    call = phone.device.ring(CALL_USER);
  });
  // Listen, whisper and barge calls may be auto-accepted; others are accepted by the agent.
  const accept = await findAnswerButton();
  await user.click(accept);
  const panel = await screen.findByRole('region', { name: 'On call' });
  return { server, platform, call: call!, user, panel };
}

const controls = (panel: HTMLElement) =>
  within(panel)
    .getAllByRole('button')
    .filter((b) => !b.closest('[aria-label="Keypad"], .supervise-switch'))
    .map(
      (b) =>
        `${b.textContent?.replace(/[A-Z]$/, '')}${(b as HTMLButtonElement).disabled ? ' (disabled)' : ''}`,
    );

describe('on-call controls by kind of call', () => {
  it.each([
    [
      'a lead call',
      'lead',
      true,
      ['Hold', 'Transfer', 'Keypad', 'Conference', 'Audio', 'Mute', 'Hang Up'],
    ],
    [
      'a transfer',
      'transfer',
      true,
      ['Hold', 'Transfer', 'Keypad', 'Conference', 'Audio', 'Mute', 'Hang Up'],
    ],
    [
      'a conference',
      'conference',
      true,
      ['Hold', 'Transfer', 'Keypad', 'Conference', 'Audio', 'Mute', 'Hang Up'],
    ],
    [
      'a call without a lead',
      'lead',
      false,
      ['Add Lead', 'Keypad', 'Conference', 'Audio', 'Mute', 'Hang Up'],
    ],
    ['a listen call', 'listen', true, ['Audio', 'Mute (disabled)', 'Hang Up']],
    ['a whisper call', 'whisper', true, ['Audio', 'Mute', 'Hang Up']],
    ['a whisper call without a lead', 'whisper', false, ['Add Lead', 'Audio', 'Mute', 'Hang Up']],
  ] as const)('%s shows %#', async (_name, type: CallType, withLead, expected) => {
    const { panel } = await onCall(
      demoCallUser({ type, call: withLead ? {} : { lead: null, lead_id: null } }),
    );
    expect(controls(panel)).toEqual(expected);
  });
});

describe('Hold / Resume', () => {
  it('holds through the server, shows Resume and On hold, then resumes', async () => {
    const { server, user, panel } = await onCall();
    const hold = within(panel).getByRole('button', { name: 'Hold' });
    expect(hold).toHaveAttribute('aria-pressed', 'false');
    expect(hold).toHaveAttribute('aria-keyshortcuts', 'o');
    await user.click(hold);
    const resume = await within(panel).findByRole('button', { name: 'Resume' });
    expect(resume).toHaveAttribute('aria-pressed', 'true');
    expect(within(panel).getByText('On hold')).toBeVisible();
    expect(server.requestsTo('PUT', `/api/v1/calls/${CALL_ID}/hold`)).toHaveLength(1);

    await user.click(resume);
    expect(await within(panel).findByRole('button', { name: 'Hold' })).toHaveAttribute(
      'aria-pressed',
      'false',
    );
    expect(within(panel).getByText('On call')).toBeVisible();
    expect(server.requestsTo('PUT', `/api/v1/calls/${CALL_ID}/unhold`)).toHaveLength(1);
  });

  it('O holds from the keyboard', async () => {
    const { server, user, panel } = await onCall();
    await user.keyboard('o');
    expect(await within(panel).findByRole('button', { name: 'Resume' })).toBeVisible();
    expect(server.requestsTo('PUT', `/api/v1/calls/${CALL_ID}/hold`)).toHaveLength(1);
  });

  it('a refused hold is only logged: no banner, the button stays Hold', async () => {
    const { server, platform, user, panel } = await onCall();
    server.refuseNext('PUT', `/api/v1/calls/${CALL_ID}/hold`, 403, 'Not your call.');
    await user.click(within(panel).getByRole('button', { name: 'Hold' }));
    await waitFor(() =>
      expect(platform.logs.some((l) => l.level === 'error' && /holding/.test(l.message))).toBe(
        true,
      ),
    );
    expect(within(panel).getByRole('button', { name: 'Hold' })).toHaveAttribute(
      'aria-pressed',
      'false',
    );
    expect(within(panel).queryByRole('alert')).toBeNull();
    expect(within(panel).getByText('On call')).toBeVisible();
  });

  it('Hang Up still works while a hold waits for the server', async () => {
    const { server, call, user, panel } = await onCall();
    const release = server.hold();
    await user.click(within(panel).getByRole('button', { name: 'Hold' }));
    await user.click(within(panel).getByRole('button', { name: 'Hang Up' }));
    expect(await screen.findByRole('button', { name: 'Contacted' })).toBeVisible();
    expect(call.status()).toBe('closed');
    release();
  });
});

describe('the keypad', () => {
  it('opens from Keypad; its keys and the keyboard send digits in order and show them', async () => {
    const { call, user, panel } = await onCall();
    const toggle = within(panel).getByRole('button', { name: 'Keypad' });
    expect(within(panel).queryByRole('region', { name: 'Keypad' })).toBeNull();
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', 'true');
    const keypad = within(panel).getByRole('region', { name: 'Keypad' });
    expect(
      within(keypad)
        .getAllByRole('button')
        .map((b) => b.getAttribute('aria-label') ?? b.textContent),
    ).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', 'Star', '0', 'Pound']);

    await user.click(within(keypad).getByRole('button', { name: '1' }));
    await user.click(within(keypad).getByRole('button', { name: '2' }));
    await user.click(within(keypad).getByRole('button', { name: 'Pound' }));
    await user.keyboard('9*0');
    expect(call.invocations.filter((i) => i.startsWith('sendDigits'))).toEqual([
      'sendDigits(1)',
      'sendDigits(2)',
      'sendDigits(#)',
      'sendDigits(9)',
      'sendDigits(*)',
      'sendDigits(0)',
    ]);
    expect(within(keypad).getByRole('status', { name: 'Digits sent' })).toHaveTextContent('12#9*0');

    // K closes it; digits typed with it closed go nowhere.
    await user.keyboard('k');
    expect(within(panel).queryByRole('region', { name: 'Keypad' })).toBeNull();
    await user.keyboard('5');
    expect(call.invocations).not.toContain('sendDigits(5)');
  });

  it('while the signalling is down a digit is not listed as sent, and the keypad shows the softphone’s error', async () => {
    const { call, user, panel, platform } = await onCall();
    await user.click(within(panel).getByRole('button', { name: 'Keypad' }));
    const keypad = within(panel).getByRole('region', { name: 'Keypad' });
    await user.click(within(keypad).getByRole('button', { name: '1' }));
    call.signallingDown = true;
    await user.click(within(keypad).getByRole('button', { name: '2' }));
    expect(within(keypad).getByRole('status', { name: 'Digits sent' })).toHaveTextContent(/^1$/);
    expect(within(keypad).getByRole('alert')).toHaveTextContent(
      'Could not send DTMF: Signaling channel is disconnected',
    );
    // Not a call failure: still on the call, no alert; logged for Copy Error Logs.
    expect(within(panel).getByRole('button', { name: 'Hang Up' })).toBeEnabled();
    expect(platform.alerts).toEqual([]);
    expect(platform.logs.at(-1)?.message).toContain(
      'ConnectionError (31005): Could not send DTMF: Signaling channel is disconnected',
    );
    // Back: the next digit goes out and the error goes away.
    call.signallingDown = false;
    await user.keyboard('3');
    expect(within(keypad).getByRole('status', { name: 'Digits sent' })).toHaveTextContent(/^13$/);
    expect(within(keypad).queryByRole('alert')).toBeNull();
  });

  it('is not offered on a listen call, and its shortcut does nothing there', async () => {
    const { call, user, panel } = await onCall(demoCallUser({ type: 'listen' }));
    await user.keyboard('k');
    expect(within(panel).queryByRole('region', { name: 'Keypad' })).toBeNull();
    await user.keyboard('1');
    expect(call.invocations.some((i) => i.startsWith('sendDigits'))).toBe(false);
  });
});

describe('the reconnecting banner', () => {
  it("shows 'Reconnecting…' with the seconds while the call reconnects, and clears by itself", async () => {
    const { call, platform, panel } = await onCall();
    expect(within(panel).queryByText(/Reconnecting/)).toBeNull();
    act(() => call.dropConnection());
    // The on-call view's other status line is the call quality notices' (empty here).
    const banner = () =>
      within(panel)
        .getAllByRole('status')
        .find((status) => status.textContent?.startsWith('Reconnecting'));
    expect(banner()).toHaveTextContent('Reconnecting… 0 s');
    act(() => platform.clock.tick(3_000));
    expect(banner()).toHaveTextContent('Reconnecting… 3 s');
    // The controls stay usable meanwhile.
    expect(within(panel).getByRole('button', { name: 'Hang Up' })).toBeEnabled();
    act(() => call.reconnect());
    expect(within(panel).queryByText(/Reconnecting/)).toBeNull();
    expect(
      platform.logs.some((l) => /reconnecting after ConnectionError \(53405\)/.test(l.message)),
    ).toBe(true);
  });
});

describe('the call timer', () => {
  it('starts from the call’s own time on a whisper call, from 00:00 on a lead call', async () => {
    const whisper = await onCall(
      demoCallUser({ type: 'whisper', call: { seconds_since_started_at: 65 } }),
    );
    expect(within(whisper.panel).getByRole('timer')).toHaveTextContent('01:05');
    act(() => whisper.platform.clock.tick(1_000));
    expect(within(whisper.panel).getByRole('timer')).toHaveTextContent('01:06');
  });

  it('a lead call starts at 00:00 whatever the call’s age', async () => {
    const { panel } = await onCall(demoCallUser({ call: { seconds_since_started_at: 65 } }));
    expect(within(panel).getByRole('timer')).toHaveTextContent('00:00');
  });
});
