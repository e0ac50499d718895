/**
 * The ringing view's answer button (spec section 2: "Accept (inbound or transfer) or Call
 * button, and an Ignore button"), in the whole app on the fake server and phone: its word by
 * kind of call, and the one shortcut (A) that answers whichever word it shows.
 */
import type { CallType } from '@leadline/contracts';
import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { demoCallUser } from '../test-support/fake-api';
import {
  CALL_USER_UNDER_TEST,
  consoleUnderTest,
  findAnswerButton,
} from '../test-support/console-under-test';

type Kind = { readonly type: CallType; readonly direction: 'inbound' | 'outbound' };

describe('the ringing view says Call or Accept by kind of call', () => {
  it.each<[string, Kind, 'Accept' | 'Call']>([
    ['a rung lead', { type: 'lead', direction: 'outbound' }, 'Call'],
    ['a conference invitation', { type: 'conference', direction: 'outbound' }, 'Call'],
    ['an inbound call', { type: 'lead', direction: 'inbound' }, 'Accept'],
    ['a transfer', { type: 'transfer', direction: 'outbound' }, 'Accept'],
    ['a transfer of an inbound call', { type: 'transfer', direction: 'inbound' }, 'Accept'],
  ])('%s shows %s beside Ignore', async (_, { type, direction }, word) => {
    const { phone } = await consoleUnderTest([], demoCallUser({ type, call: { direction, type } }));
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST));
    const answer = await findAnswerButton(word);
    const other = word === 'Call' ? 'Accept' : 'Call';
    expect(screen.queryByRole('button', { name: other })).toBeNull();
    expect(screen.getByRole('button', { name: 'Ignore' })).toBeVisible();
    // The answer button has the focus: Enter answers, as A does.
    expect(answer).toHaveFocus();
    expect(answer).toHaveAttribute('aria-keyshortcuts', 'a');
  });

  it.each<[string, Kind]>([
    ['Call (a rung lead)', { type: 'lead', direction: 'outbound' }],
    ['Accept (a transfer)', { type: 'transfer', direction: 'outbound' }],
  ])('the A key answers when the button says %s', async (_, { type, direction }) => {
    const { phone, user } = await consoleUnderTest(
      [],
      demoCallUser({ type, call: { direction, type } }),
    );
    let rung: ReturnType<typeof phone.device.ring> | undefined;
    act(() => void (rung = phone.device.ring(CALL_USER_UNDER_TEST)));
    await screen.findByRole('button', { name: 'Ignore' });
    await user.keyboard('a');
    expect(await screen.findByRole('region', { name: 'On call' })).toBeVisible();
    expect(rung!.status()).toBe('open');
  });
});
