/**
 * Test helper: the whole console for an agent with `permissions`, on the fake server and phone,
 * with the phone ready; `toCallResult()` rings the call user, accepts and hangs up.
 */
import type { CallUserResponse } from '@leadline/contracts';
import { act, render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { expect } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from './fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from './fake-phone';
import { createFakePlatform, type FakePlatformOptions } from './fake-platform';

/** The call user the console under test is rung for. */
export const CALL_USER_UNDER_TEST = 42;

/**
 * The ringing view's answer button once a call rings: 'Call' for a rung lead or a conference,
 * 'Accept' for an inbound call or a transfer (spec section 2); either when `word` is omitted.
 * Looked up inside the ringing view: the waiting view's navigation has a Call button too.
 */
export async function findAnswerButton(word?: 'Accept' | 'Call'): Promise<HTMLElement> {
  const ringing = await screen.findByRole('region', { name: 'Incoming call' });
  return within(ringing).getByRole('button', { name: word ?? /^(Accept|Call)$/ });
}

/** Renders the console and waits until its phone is ready. */
export async function consoleUnderTest(
  permissions: string[],
  callUser: CallUserResponse = demoCallUser(),
  platformOptions: FakePlatformOptions = {},
) {
  const server = new FakeApi([{ user: demoUser({ permissions }), password: 'pw' }]).signIn();
  server.addCallUser(CALL_USER_UNDER_TEST, callUser);
  const phone = new FakePhone();
  const user = userEvent.setup();
  const platform = createFakePlatform(server.fetch, platformOptions);
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  /** Rings, accepts and hangs up: the Call Result view shows. */
  const toCallResult = async () => {
    act(() => void phone.device.ring(CALL_USER_UNDER_TEST));
    await user.click(await findAnswerButton());
    await user.click(await screen.findByRole('button', { name: 'Hang Up' }));
    await screen.findByRole('heading', { name: 'Call Result' });
  };
  const nav = () => within(screen.getByRole('navigation', { name: 'Console' }));
  return { server, phone, platform, user, toCallResult, nav };
}
