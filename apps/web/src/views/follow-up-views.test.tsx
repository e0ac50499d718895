/**
 * After the call in the whole app (fake server and phone): the Call Result's Retry and SMS by
 * permission, the Send SMS view, Tags & Stages with its coloured buttons and digit keys, and
 * Check for lead.
 */
import type { CallUserResponse } from '@leadline/contracts';
import { DEFAULT_SMS_TEXT as CONTRACT_SMS_TEXT, IDEMPOTENCY_KEY_HEADER } from '@leadline/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { DEFAULT_SMS_TEXT, IDEMPOTENCY_KEY } from '../constants';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { consoleUnderTest } from '../test-support/console-under-test';

const TAGS = [
  { id: 1, key: 'hot', name: 'Hot lead', color: '#d93025' },
  { id: 2, key: 'quote-sent', name: 'Quote sent', color: '#f29900' },
];

async function afterCall(permissions: string[], callUser?: CallUserResponse) {
  const console = await consoleUnderTest(permissions, callUser);
  await console.toCallResult();
  return console;
}

const resultButtons = () =>
  within(screen.getByRole('group', { name: 'Call Result' }))
    .getAllByRole('button')
    .map((b) => b.textContent?.replace(/[A-Z]$/, ''));

describe('after the call', () => {
  it('the constants agree with the contracts', () => {
    expect(DEFAULT_SMS_TEXT).toBe(CONTRACT_SMS_TEXT);
    expect(IDEMPOTENCY_KEY).toBe(IDEMPOTENCY_KEY_HEADER);
  });

  it.each([
    [[], ['Contacted', 'Voicemail', 'Missed', 'Remove']],
    [['app-retry'], ['Contacted', 'Voicemail', 'Missed', 'Remove', 'Retry']],
    [['app-sms'], ['Contacted', 'Voicemail', 'Missed', 'Remove', 'SMS']],
    [
      ['app-sms', 'app-retry'],
      ['Contacted', 'Voicemail', 'Missed', 'Remove', 'Retry', 'SMS'],
    ],
  ])('with %j the Call Result offers %j', async (permissions, expected) => {
    await afterCall(permissions);
    expect(resultButtons()).toEqual(expected);
  });

  it('Voicemail with app-sms: the SMS view is prefilled; Send posts it with a key', async () => {
    const { server, user } = await afterCall(['app-sms']);
    await user.click(screen.getByRole('button', { name: 'Voicemail' }));
    const text = await screen.findByLabelText('Message to the lead');
    expect(text).toHaveValue("Sorry we couldn't reach you!");
    expect(text).toHaveFocus();
    await user.clear(text);
    await user.type(text, 'Sorry we missed you');
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    const [sent] = server.requestsTo('POST', '/apps/webrtc/9001/sms');
    expect(sent?.body).toEqual({ smsbody: 'Sorry we missed you' });
    expect(sent?.headers.get('Idempotency-Key')).toBeTruthy();
  });

  it("a refused SMS shows the server's error in the SMS view and keeps the text", async () => {
    const { server, user } = await afterCall(['app-sms']);
    await user.click(screen.getByRole('button', { name: 'Missed' }));
    await screen.findByLabelText('Message to the lead');
    server.refuseNext('POST', '/apps/webrtc/9001/sms', 200, 'That number cannot receive texts.');
    await user.click(screen.getByRole('button', { name: /^Send/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That number cannot receive texts.');
    expect(screen.getByLabelText('Message to the lead')).toHaveValue(
      "Sorry we couldn't reach you!",
    );
    // Said once, in the view: not again under the console.
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: /^Cancel/ }));
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
  });

  it('Send is disabled while the message is empty', async () => {
    const { user } = await afterCall(['app-sms']);
    await user.click(screen.getByRole('button', { name: 'SMS' }));
    await user.clear(await screen.findByLabelText('Message to the lead'));
    expect(screen.getByRole('button', { name: /^Send/ })).toBeDisabled();
  });

  it('Contacted on a whispertext profile: a coloured button per tag; 2 picks the second', async () => {
    const { server, user } = await afterCall(
      [],
      demoCallUser({
        call: { profile: { id: 12, is_deal_whispertext: true, auto_answer: true, tags: TAGS } },
      }),
    );
    await user.click(screen.getByRole('button', { name: 'Contacted' }));
    const group = await screen.findByRole('group', { name: 'Tags & Stages' });
    const hot = within(group).getByRole('button', { name: /Hot lead/ });
    expect(hot).toHaveStyle({ backgroundColor: 'rgb(217, 48, 37)', color: 'rgb(255, 255, 255)' });
    expect(within(group).getByRole('button', { name: /Quote sent/ })).toHaveStyle({
      color: 'rgb(17, 20, 24)',
    });
    await user.keyboard('2');
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect(server.requestsTo('POST', '/apps/webrtc/9001/disposition2')[0]?.body).toEqual({
      key: 'quote-sent',
    });
  });

  it('Contacted on another profile goes to Thank you', async () => {
    const { user } = await afterCall(['app-sms']);
    await user.click(screen.getByRole('button', { name: 'Contacted' }));
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
  });

  it('Retry returns to waiting and shows the server’s error', async () => {
    const { server, user } = await afterCall(['app-retry']);
    server.refuseNext('POST', '/api/v1/calls/twilio', 200, 'All agents busy');
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(await screen.findByText('All agents busy')).toBeVisible();
  });

  it('an open Call History is read again once the kept writes reach the server', async () => {
    const { server, user } = await afterCall([]);
    const release = server.hold();
    await user.click(screen.getByRole('button', { name: 'Voicemail' }));
    await user.click(await screen.findByRole('button', { name: /^Done/ }));
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'History',
      }),
    );
    await waitFor(() => expect(server.requestsTo('GET', '/api/v1/mycalls')).toHaveLength(1));
    release();
    await waitFor(() => expect(server.requestsTo('GET', '/api/v1/mycalls')).toHaveLength(2));
  });

  it('Check for lead says what the server answered', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    const user = userEvent.setup();
    render(
      <App
        phoneFactory={new FakePhone().factory}
        platform={createFakePlatform(server.fetch)}
        queryClient={createQueryClient()}
      />,
    );
    expect(await screen.findByText('Phone ready')).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Check for lead' }));
    expect(await screen.findByText('No leads waiting.')).toBeVisible();
    expect(server.requestsTo('POST', '/apps/webrtc/check')).toHaveLength(1);
  });
});
