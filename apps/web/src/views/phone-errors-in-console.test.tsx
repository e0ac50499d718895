/**
 * Spec section 8's softphone error table, in the whole console (fake server, phone and browser):
 * what the agent sees and what the console does for each code, on a call and with the phone idle,
 * and the no-refetch accounts (the 781 behaviour) for token errors, `unregistered` and
 * `tokenWillExpire`. The expectations are the spec's, row by row.
 */
import type { AccountSettings } from '@leadline/contracts';
import { act, render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { MICROPHONE_ERROR_ALERT } from '../constants';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { findAnswerButton } from '../test-support/console-under-test';

const CALL_USER = 42;
/** §8: 'Connection error: alert 'Connection error code 8''. */
const CONNECTION_ALERT = 'Connection error code 8';
/** A timestamped log line (ISO 8601) naming the code. */
const loggedWith = (code: number) =>
  new RegExp(`^\\[\\d{4}-\\d\\d-\\d\\dT[^\\]]+\\] .*\\(${code}\\)`);

async function consoleOnACall(settings: AccountSettings = {}) {
  const server = new FakeApi([{ user: demoUser({ settings }), password: 'pw' }]).signIn();
  server.addCallUser(CALL_USER, demoCallUser());
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  let call!: ReturnType<typeof phone.device.ring>;
  act(() => void (call = phone.device.ring(CALL_USER)));
  await user.click(await findAnswerButton('Call'));
  await screen.findByRole('region', { name: 'On call' });
  const errorLines = () => platform.logs.filter((line) => line.level === 'error');
  return { server, platform, phone, call, errorLines };
}

const onCall = () => screen.queryByRole('region', { name: 'On call' });
const waiting = () => screen.queryByRole('heading', { name: 'Waiting for lead...' });

describe('softphone errors on a call (spec section 8)', () => {
  it.each([31009, 31005])(
    '%i is ignored: the call goes on, nothing alerted or logged',
    async (code) => {
      const { call, platform, errorLines } = await consoleOnACall();
      act(() => void call.fail(code));
      expect(onCall()).toBeVisible();
      expect(platform.alerts).toEqual([]);
      expect(errorLines()).toEqual([]);
    },
  );

  it.each([31401, 31402, 31208])(
    '%i: the microphone alert, logged with a timestamp, and the call reset',
    async (code) => {
      const { call, platform, errorLines } = await consoleOnACall();
      act(() => void call.fail(code, 'Permission denied', 'PermissionDeniedError'));
      await waitFor(() => expect(waiting()).toBeVisible());
      expect(platform.alerts).toEqual([MICROPHONE_ERROR_ALERT]);
      expect(errorLines().map((line) => line.message)).toEqual([
        expect.stringMatching(loggedWith(code)),
      ]);
    },
  );

  it.each([31205, 20101, 20104])(
    '%i: a new token is fetched and handed to the device; the call goes on',
    async (code) => {
      const { call, server, phone } = await consoleOnACall();
      const before = server.issuedTokens;
      act(() => void call.fail(code, 'Access token expired', 'AccessTokenExpired'));
      await waitFor(() => expect(server.issuedTokens).toBe(before + 1));
      await waitFor(() => expect(phone.device.tokens).toHaveLength(2));
      expect(onCall()).toBeVisible();
    },
  );

  it.each([31205, 20101, 20104])(
    '%i on a no-refetch account (781): no new token, the call goes on',
    async (code) => {
      const { call, server, phone } = await consoleOnACall({ no_token_refetch: true });
      const before = server.issuedTokens;
      act(() => void call.fail(code, 'Access token expired', 'AccessTokenExpired'));
      await Promise.resolve();
      expect(server.issuedTokens).toBe(before);
      expect(phone.device.tokens).toHaveLength(1);
      expect(onCall()).toBeVisible();
    },
  );

  it.each([
    [31000, 'Error creating the offer'],
    [31003, 'Media connection interrupted'],
    [31201, 'Authentication failed'],
    [31204, 'Access token invalid'],
    [53405, 'Media connection failed.'],
  ])(
    '%i (%s): logged with a timestamp, the connection error alert, and the call reset',
    async (code, message) => {
      const { call, platform, errorLines } = await consoleOnACall();
      act(() => void call.fail(code, message));
      await waitFor(() => expect(waiting()).toBeVisible());
      expect(platform.alerts).toEqual([CONNECTION_ALERT]);
      expect(errorLines().map((line) => line.message)).toEqual([
        expect.stringMatching(loggedWith(code)),
      ]);
    },
  );
});

describe('a call the server declined (31603, the dial guard)', () => {
  it('its sentence in the waiting view, logged with a timestamp, no alert, no Call Result', async () => {
    const { call, platform, errorLines } = await consoleOnACall();
    const sentence = 'Calls to the United Kingdom are not allowed for this account.';
    act(() => void call.fail(31603, sentence, 'Decline'));
    await waitFor(() => expect(waiting()).toBeVisible());
    expect(screen.getByText(sentence)).toBeVisible();
    expect(screen.queryByRole('heading', { name: 'Call Result' })).toBeNull();
    expect(platform.alerts).toEqual([]);
    expect(errorLines().map((line) => line.message)).toEqual([
      expect.stringMatching(loggedWith(31603)),
    ]);
  });
});

describe('device errors with no call (spec section 8)', () => {
  async function idleConsole(settings: AccountSettings = {}) {
    const server = new FakeApi([{ user: demoUser({ settings }), password: 'pw' }]).signIn();
    const platform = createFakePlatform(server.fetch);
    const phone = new FakePhone();
    render(
      <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
    );
    expect(await screen.findByText('Phone ready')).toBeVisible();
    return { server, platform, phone };
  }

  it('a microphone error alerts and leaves the agent waiting', async () => {
    const { phone, platform } = await idleConsole();
    act(() => void phone.device.fail(31401, 'Permission denied'));
    expect(platform.alerts).toEqual([MICROPHONE_ERROR_ALERT]);
    expect(waiting()).toBeVisible();
  });

  it.each([
    { settings: {}, refetches: 1 },
    { settings: { no_token_refetch: true }, refetches: 0 },
  ])(
    'token expiry ($refetches refetch with $settings): the device error, tokenWillExpire and unregistered',
    async ({ settings, refetches }) => {
      const { phone, server } = await idleConsole(settings);
      const device = phone.device;
      const start = server.issuedTokens;
      act(() => void device.fail(31205, 'Access token expired'));
      await waitFor(() => expect(server.issuedTokens).toBe(start + refetches));
      act(() => device.warnTokenExpiry());
      await waitFor(() => expect(server.issuedTokens).toBe(start + 2 * refetches));
      // The gateway dropped the registration: the device registers again, with a fresh token
      // unless the account keeps the one it has.
      act(() => device.dropRegistration());
      await waitFor(() => expect(device.state).toBe('registered'));
      expect(server.issuedTokens).toBe(start + 3 * refetches);
      expect(device.tokens).toHaveLength(1 + 3 * refetches);
      expect(await screen.findByText('Phone ready')).toBeVisible();
    },
  );
});
