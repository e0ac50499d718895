import type { CallerNumber, User } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';

const MAIN_LINE: CallerNumber = {
  id: 3,
  name: 'Acme Solar main line',
  phone_number_formatted: '+1 555 014 2000',
};
const LONG_NAME: CallerNumber = {
  id: 4,
  name: 'Acme Solar spring campaign for the northern counties',
  phone_number_formatted: '+1 555 014 2010',
};

function renderApp(
  options: { user?: Partial<User>; callerNumbers?: CallerNumber[]; launchUrl?: string } = {},
) {
  const server = new FakeApi([{ user: demoUser(options.user), password: 'pw' }]).signIn();
  server.setCallerNumbers(options.callerNumbers ?? []);
  const platform = createFakePlatform(server.fetch, { launchUrl: options.launchUrl });
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  async function ready(): Promise<void> {
    expect(await screen.findByText('Phone ready')).toBeVisible();
  }
  async function openNewCall(): Promise<HTMLElement> {
    await ready();
    await user.click(screen.getByRole('button', { name: 'Call' }));
    return screen.findByRole('region', { name: 'New Call' });
  }
  return { server, platform, phone, user, ready, openNewCall };
}

const banner = () => screen.getByRole('status', { name: 'Call status' });
const field = (name: string) => screen.getByRole('textbox', { name });

describe('waiting: the bottom navigation', () => {
  it('has Call, History and Settings, Conference hidden', async () => {
    const { ready } = renderApp();
    await ready();
    const nav = screen.getByRole('navigation', { name: 'Console' });
    expect(within(nav).getByRole('button', { name: 'Call' })).toBeEnabled();
    expect(within(nav).getByRole('button', { name: 'Call' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
    expect(within(nav).getByRole('button', { name: 'History' })).toBeEnabled();
    expect(within(nav).getByRole('button', { name: 'Settings' })).toBeEnabled();
    expect(within(nav).queryByRole('button', { name: 'Conference' })).toBeNull();
  });
});

describe('the New Call panel', () => {
  it('opens from Call with First Name, Last Name, Phone Number and Call Now', async () => {
    const { openNewCall } = renderApp();
    const panel = await openNewCall();
    expect(screen.getByRole('button', { name: 'Call' })).toHaveAttribute('aria-expanded', 'true');
    expect(field('First Name')).toHaveFocus();
    expect(field('Last Name')).toBeVisible();
    expect(field('Phone Number')).toHaveAttribute('placeholder', 'Enter a phone number');
    expect(within(panel).getByRole('combobox', { name: 'Country' })).toHaveTextContent(
      'United States +1',
    );
    expect(within(panel).getByRole('button', { name: 'Call Now' })).toBeEnabled();
    // No caller numbers, no selector.
    expect(within(panel).queryByRole('combobox', { name: 'Caller ID' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Waiting for lead...' })).toBeNull();
  });

  it('defaults the phone input to the user’s country_code', async () => {
    const { openNewCall } = renderApp({ user: { country_code: 'GB' } });
    const panel = await openNewCall();
    expect(within(panel).getByRole('combobox', { name: 'Country' })).toHaveTextContent(
      'United Kingdom +44',
    );
  });

  it('offers Caller ID when the account has numbers: Default, or name (40 chars…): number', async () => {
    const { openNewCall } = renderApp({ callerNumbers: [MAIN_LINE, LONG_NAME] });
    const panel = await openNewCall();
    const select = await within(panel).findByRole('combobox', { name: 'Caller ID' });
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual([
      'Default',
      'Acme Solar main line: +1 555 014 2000',
      'Acme Solar spring campaign for the north...: +1 555 014 2010',
    ]);
    expect(select).toHaveValue('');
  });

  it('Escape and Close close it, and focus returns to Call', async () => {
    const { user, openNewCall } = renderApp();
    await openNewCall();
    await user.keyboard('{Escape}');
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    const call = screen.getByRole('button', { name: 'Call' });
    expect(call).toHaveFocus();
    expect(call).toHaveAttribute('aria-expanded', 'false');
    await user.click(call);
    await user.click(await screen.findByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('region', { name: 'New Call' })).toBeNull();
    expect(call).toHaveFocus();
  });

  it('Escape in the country list closes the list, not the panel', async () => {
    const { user, openNewCall } = renderApp();
    const panel = await openNewCall();
    await user.click(within(panel).getByRole('combobox', { name: 'Country' }));
    expect(await screen.findByRole('listbox', { name: 'Countries' })).toBeVisible();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(screen.getByRole('region', { name: 'New Call' })).toBeVisible();
  });
});

describe('New Call → dialing → on the call', () => {
  it("posts E.164, shows 'Dialing...', connects, and goes on the call when answered", async () => {
    const { user, server, phone, platform, openNewCall } = renderApp();
    await openNewCall();
    await user.type(field('First Name'), 'Jordan');
    await user.type(field('Last Name'), 'Miles');
    await user.type(field('Phone Number'), '(415) 555-0132');
    expect(field('Phone Number')).toHaveValue('(415) 555-0132');
    await user.click(screen.getByRole('button', { name: 'Call Now' }));

    expect(await screen.findByRole('region', { name: 'Dialing' })).toBeVisible();
    expect(banner()).toHaveTextContent('Dialing...');
    const [posted] = server.requestsTo('POST', '/api/v1/calls/twilio/outbound');
    expect(posted?.body).toEqual({
      fname: 'Jordan',
      lname: 'Miles',
      phone_number: '+14155550132',
      agent_id: 7,
    });
    expect(posted?.headers.get('X-CSRF-TOKEN')).toBe('csrf-dana');
    expect(screen.getByRole('article', { name: 'Lead: Jordan Miles' })).toBeVisible();
    expect(screen.getByText('Calling +1 415 555 0132…')).toBeVisible();
    const call = phone.device.lastOutgoing;
    expect(call.connectParams).toEqual({ call_user_id: '700', To: '+14155550132' });
    expect(screen.queryByRole('timer')).toBeNull();

    act(() => call.answerRemotely());
    const timer = await screen.findByRole('timer');
    expect(timer).toHaveTextContent('00:00');
    expect(banner()).toBeEmptyDOMElement();
    act(() => platform.clock.tick(1000));
    expect(timer).toHaveTextContent('00:01');

    await user.click(screen.getByRole('button', { name: 'Hang Up' }));
    expect(await screen.findByRole('heading', { name: 'Call Result' })).toBeVisible();
    expect(banner()).toHaveTextContent('Call Ended');
    await user.click(screen.getByRole('button', { name: 'Contacted' }));
    expect(server.requestsTo('POST', '/apps/webrtc/9100/disposition')[0]?.body).toEqual({
      status: 'contacted',
    });
  });

  it('+44 20 7946 0958 goes as +442079460958, with the chosen caller id', async () => {
    const { user, server, phone, openNewCall } = renderApp({ callerNumbers: [MAIN_LINE] });
    const panel = await openNewCall();
    await user.type(field('Phone Number'), '+44 20 7946 0958');
    expect(field('Phone Number')).toHaveValue('+44 20 7946 0958');
    expect(within(panel).getByRole('combobox', { name: 'Country' })).toHaveTextContent(
      'United Kingdom +44',
    );
    await user.selectOptions(
      await within(panel).findByRole('combobox', { name: 'Caller ID' }),
      'Acme Solar main line: +1 555 014 2000',
    );
    await user.click(screen.getByRole('button', { name: 'Call Now' }));
    await screen.findByRole('region', { name: 'Dialing' });
    expect(server.placedCalls[0]?.body).toMatchObject({
      fname: '',
      lname: '',
      phone_number: '+442079460958',
      caller_id: 3,
    });
    expect(phone.device.lastOutgoing.connectParams).toEqual({
      call_user_id: '700',
      To: '+442079460958',
      callerId: '+15550142000',
    });
  });

  it('a number typed nationally for the selected country goes as E.164', async () => {
    const { user, server, openNewCall } = renderApp({ user: { country_code: 'GB' } });
    await openNewCall();
    await user.type(field('Phone Number'), '02079460958');
    expect(field('Phone Number')).toHaveValue('020 7946 0958');
    await user.click(screen.getByRole('button', { name: 'Call Now' }));
    await screen.findByRole('region', { name: 'Dialing' });
    expect(server.placedCalls[0]?.body.phone_number).toBe('+442079460958');
  });

  it('Call Now is disabled while the call is being placed', async () => {
    const { user, server, openNewCall } = renderApp();
    await openNewCall();
    await user.type(field('Phone Number'), '+1 555 010 0142');
    const release = server.hold();
    await user.click(screen.getByRole('button', { name: 'Call Now' }));
    const button = screen.getByRole('button', { name: 'Call Now' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
    await user.click(button);
    await user.keyboard('{Enter}');
    release();
    expect(await screen.findByRole('region', { name: 'Dialing' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound')).toHaveLength(1);
    expect(server.placedCalls[0]?.body.phone_number).toBe('+15550100142');
  });

  it('shows the server’s error in the panel’s banner and stays', async () => {
    const { user, server, openNewCall } = renderApp();
    const panel = await openNewCall();
    server.refuseNext('POST', '/api/v1/calls/twilio/outbound', 422, 'The lead is on the DNC list.');
    await user.type(field('Phone Number'), '4155550132');
    await user.click(screen.getByRole('button', { name: 'Call Now' }));
    expect(await within(panel).findByRole('alert')).toHaveTextContent(
      'The lead is on the DNC list.',
    );
    expect(screen.getByRole('button', { name: 'Call Now' })).toBeEnabled();
    expect(banner()).toBeEmptyDOMElement();
  });

  it('sends what it cannot read as typed, and shows the server’s answer', async () => {
    const { user, server, openNewCall } = renderApp();
    const panel = await openNewCall();
    await user.click(screen.getByRole('button', { name: 'Call Now' }));
    expect(await within(panel).findByRole('alert')).toHaveTextContent(
      'The phone number field is required.',
    );
    await user.type(field('Phone Number'), '415 555 013');
    await user.tab();
    expect(field('Phone Number')).toHaveAccessibleDescription(
      'The number has too few or too many digits for United States.',
    );
    await user.click(screen.getByRole('button', { name: 'Call Now' }));
    await waitFor(() =>
      expect(within(panel).getByRole('alert')).toHaveTextContent(
        'The phone number is not a valid phone number.',
      ),
    );
    expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound')[1]?.body).toMatchObject({
      phone_number: '415 555 013',
    });
  });

  it('Hang Up (Escape) while dialing ends the call and asks for the result', async () => {
    const { user, phone, openNewCall } = renderApp();
    await openNewCall();
    await user.type(field('Phone Number'), '+1 555 010 0142{Enter}');
    const dialing = await screen.findByRole('region', { name: 'Dialing' });
    expect(dialing).toHaveFocus();
    const hangUp = within(dialing).getByRole('button', { name: 'Hang Up' });
    expect(hangUp).toHaveAttribute('aria-keyshortcuts', 'Escape');
    await user.keyboard('{Escape}');
    expect(await screen.findByRole('heading', { name: 'Call Result' })).toBeVisible();
    expect(phone.device.lastOutgoing.status()).toBe('closed');
  });
});

describe('?url=tel:/… opens New Call', () => {
  it('prefilled with the digits and plus sign of the link', async () => {
    const { ready } = renderApp({ launchUrl: 'http://console.test/?url=tel:/%2B1-415-555-0132' });
    await ready();
    const panel = await screen.findByRole('region', { name: 'New Call' });
    expect(within(panel).getByRole('textbox', { name: 'Phone Number' })).toHaveValue(
      '+1 415 555 0132',
    );
    expect(within(panel).getByRole('combobox', { name: 'Country' })).toHaveTextContent(
      'United States +1',
    );
  });

  it('ignores a url that does not start with tel:/', async () => {
    const { ready, platform } = renderApp({ launchUrl: 'http://console.test/?url=tel:4155550132' });
    await ready();
    expect(screen.getByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(screen.queryByRole('region', { name: 'New Call' })).toBeNull();
    expect(platform.logs).toContainEqual({
      level: 'info',
      message: 'Ignored the launch link: The url parameter must start with tel:/.',
    });
  });
});
