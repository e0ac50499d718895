/**
 * Nothing the spec gates by a permission (section 6) is reachable without it, by button or by
 * keyboard shortcut: Retry (app-retry), SMS and the SMS step (app-sms), Auto Accept
 * (app-autoaccept), and the Conference entry for supervisors (listen, whisper, barge).
 */
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { consoleUnderTest } from '../test-support/console-under-test';

const ALL = ['app-sms', 'app-retry', 'app-autoaccept', 'listen', 'whisper', 'barge'];

async function consoleOf(permissions: string[]) {
  const { server, user, toCallResult, nav } = await consoleUnderTest(permissions);
  return { server, user, callResult: toCallResult, nav };
}

describe('permission gating', () => {
  it.each([
    ['app-retry', 'Retry', 'y'],
    ['app-sms', 'SMS', 's'],
  ])(
    'without %s: no %s button, and its shortcut (%s) does nothing',
    async (permission, label, key) => {
      const { server, user, callResult } = await consoleOf(ALL.filter((p) => p !== permission));
      await callResult();
      expect(screen.queryByRole('button', { name: label })).toBeNull();
      await user.keyboard(key);
      expect(screen.getByRole('heading', { name: 'Call Result' })).toBeVisible();
      expect(server.requestsTo('POST', '/api/v1/calls/twilio')).toEqual([]);
    },
  );

  it.each([
    ['app-retry', 'Retry', 'y'],
    ['app-sms', 'SMS', 's'],
  ])('with %s: the %s button and its shortcut (%s) work', async (permission, label, key) => {
    const { user, callResult } = await consoleOf([permission]);
    await callResult();
    expect(screen.getByRole('button', { name: label })).toBeVisible();
    await user.keyboard(key);
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Call Result' })).toBeNull());
  });

  it('without app-sms, Voicemail and Missed skip the SMS step', async () => {
    const { user, callResult } = await consoleOf(ALL.filter((p) => p !== 'app-sms'));
    await callResult();
    await user.keyboard('v');
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect(screen.queryByLabelText('Message to the lead')).toBeNull();
  });

  it('without app-autoaccept there is no Auto Accept in Settings', async () => {
    const { user, nav } = await consoleOf(ALL.filter((p) => p !== 'app-autoaccept'));
    await user.click(nav().getByRole('button', { name: 'Settings' }));
    expect(screen.queryByRole('switch', { name: 'Auto Accept' })).toBeNull();
  });

  it.each([[['listen']], [['whisper']], [['barge']]])(
    'with %j the Conference entry is there',
    async (supervise) => {
      const { nav } = await consoleOf(supervise);
      expect(nav().getByRole('button', { name: 'Conference' })).toBeVisible();
    },
  );

  it('without listen, whisper or barge there is no Conference entry', async () => {
    const { nav } = await consoleOf(['app-sms', 'app-retry', 'app-autoaccept']);
    expect(nav().queryByRole('button', { name: 'Conference' })).toBeNull();
  });
});
