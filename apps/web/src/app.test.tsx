import type { CallUserResponse } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoCallUser, demoUser } from './test-support/fake-api';
import { QUERY_KEYS, createQueryClient } from './api/queries';
import { SAVED_SHOWN_MS } from './constants';
import { createServices } from './services';
import { App } from './app';
import { FakePhone, type FakeCall } from './test-support/fake-phone';
import { createFakePlatform } from './test-support/fake-platform';
import { findAnswerButton } from './test-support/console-under-test';

const LEAD = 42;
const INBOUND = 43;

function renderApp(
  options: {
    signedIn?: boolean;
    callUsers?: Record<number, CallUserResponse>;
    sso?: boolean;
    launchUrl?: string;
  } = {},
) {
  const server = new FakeApi([{ user: demoUser(), password: 'correct horse' }]);
  server.sso = options.sso ?? true;
  if (options.signedIn ?? true) server.signIn();
  const callUsers = options.callUsers ?? {
    [LEAD]: demoCallUser(),
    [INBOUND]: demoCallUser({ call: { id: 9002, direction: 'inbound' } }),
  };
  for (const [id, callUser] of Object.entries(callUsers)) server.addCallUser(Number(id), callUser);
  const platform = createFakePlatform(
    server.fetch,
    options.launchUrl ? { launchUrl: options.launchUrl } : {},
  );
  const phone = new FakePhone();
  const user = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );

  /** Waits for the waiting view with a registered phone. */
  async function ready(): Promise<void> {
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(await screen.findByText('Phone ready')).toBeVisible();
  }

  /** Rings a call and waits for the ringing view. */
  async function ring(callUserId = LEAD): Promise<FakeCall> {
    const call = ringOnly(callUserId);
    await findAnswerButton();
    return call;
  }

  /** Rings a call without waiting for anything. */
  function ringOnly(callUserId = LEAD): FakeCall {
    let call: FakeCall | undefined;
    act(() => {
      call = phone.device.ring(callUserId);
    });
    if (!call) throw new Error('no call');
    return call;
  }

  return { server, platform, phone, user, ready, ring, ringOnly };
}

function banner(): HTMLElement {
  return screen.getByRole('status', { name: 'Call status' });
}

describe('first view', () => {
  it('is marked shown once the session check has answered, not while it is pending', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'correct horse' }]);
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let asked = false;
    const fetch: typeof server.fetch = async (input, init) => {
      asked = true;
      await answered;
      return server.fetch(input, init);
    };
    const platform = createFakePlatform(fetch);
    const services = createServices({ phoneFactory: new FakePhone().factory, platform });
    let shown = false;
    void services.firstView.shown.then(() => (shown = true));
    render(<App phoneFactory={new FakePhone().factory} platform={platform} services={services} />);
    await waitFor(() => expect(asked).toBe(true));
    await act(() => Promise.resolve());
    expect(shown).toBe(false);
    answer();
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeVisible();
    await waitFor(() => expect(shown).toBe(true));
  });
});

// Spec §2, navigation bar: "It shows the product logo" (on the login view and in the console).
describe('navigation bar (spec §2)', () => {
  /** The product logo: the Leadline mark and its word mark in the page's banner. */
  function logoIn(banner: HTMLElement): void {
    expect(within(banner).getByText('Leadline')).toBeVisible();
    expect(banner.querySelector('svg')).not.toBeNull();
  }

  it('shows the product logo on the login view', async () => {
    renderApp({ signedIn: false });
    expect(await screen.findByRole('button', { name: 'Login' })).toBeVisible();
    logoIn(screen.getByRole('banner'));
  });

  it('shows the product logo in the console once the user is loaded', async () => {
    const { ready } = renderApp();
    await ready();
    logoIn(screen.getByRole('banner'));
  });
});

describe('session check', () => {
  it('goes to the login view as soon as it finds no session, before anything renders', async () => {
    const server = new FakeApi();
    const services = createServices({
      phoneFactory: new FakePhone().factory,
      platform: createFakePlatform(server.fetch),
    });
    await waitFor(() => expect(services.controller.state.view).toBe('login'));
    expect(server.requestsTo('GET', '/api/v1/user')).toHaveLength(1);
  });

  it('leaves the console waiting for its user when there is a session', async () => {
    const server = new FakeApi().signIn();
    const services = createServices({
      phoneFactory: new FakePhone().factory,
      platform: createFakePlatform(server.fetch),
    });
    await waitFor(() =>
      expect(services.queryClient.getQueryState(QUERY_KEYS.user)?.status).toBe('success'),
    );
    expect(services.controller.state.view).toBe('waiting');
  });
});

describe('login', () => {
  it('shows the login view when there is no session', async () => {
    renderApp({ signedIn: false });
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeVisible();
    const email = screen.getByLabelText('Email');
    expect(email).toHaveAttribute('type', 'email');
    expect(email).toBeRequired();
    expect(email).toHaveFocus();
    expect(screen.getByLabelText('Password')).toBeRequired();
    expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled();
    expect(await screen.findByRole('link', { name: 'Log in with Google' })).toHaveAttribute(
      'href',
      '/apps/workos/login/google',
    );
    expect(screen.queryByRole('button', { expanded: false })).toBeNull();
    expect(screen.getByText('v1.9.9')).toBeVisible();
  });

  it("shows 'Your login credentials are invalid.' for a wrong password", async () => {
    const { user, platform, server } = renderApp({ signedIn: false });
    await user.type(await screen.findByLabelText('Email'), 'dana@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Your login credentials are invalid.',
    );
    expect(platform.reloadCount).toBe(0);
    expect(server.requestsTo('POST', '/api/v1/user/login')[0]?.body).toEqual({
      email: 'dana@example.com',
      password: 'wrong password',
    });
  });

  it('hides Log in with Google when the server has no single sign-on', async () => {
    const { server } = renderApp({ signedIn: false, sso: false });
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeVisible();
    await waitFor(() => expect(server.requestsTo('GET', '/api/v1/login/options')).toHaveLength(1));
    expect(screen.queryByRole('link', { name: 'Log in with Google' })).toBeNull();
  });

  it.each([
    ['not_configured', 'Single sign-on is not configured.'],
    ['unknown_user', 'No Leadline user has this e-mail address.'],
    ['expired', 'This sign-in has expired or was already used. Please try again.'],
  ])('explains a failed single sign-on (?sso_error=%s)', async (code, sentence) => {
    renderApp({ signedIn: false, launchUrl: `http://console.test/?sso_error=${code}` });
    expect(await screen.findByRole('alert')).toHaveTextContent(sentence);
  });

  it('shows no banner for an sso_error it does not know (no text of the address reaches the page)', async () => {
    renderApp({ signedIn: false, launchUrl: 'http://console.test/?sso_error=Call+555-0100+now' });
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeVisible();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('reloads the page after a good login', async () => {
    const { user, platform } = renderApp({ signedIn: false });
    await user.type(await screen.findByLabelText('Email'), 'dana@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse{Enter}');
    await waitFor(() => expect(platform.reloadCount).toBe(1));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('the call flow', () => {
  it('waiting → Incoming Lead! → Accept → timer → Mute → Hang Up → Call Ended → Contacted → Done', async () => {
    const { user, platform, server, ready, ring } = renderApp();
    await ready();

    const call = await ring();
    expect(banner()).toHaveTextContent('Incoming Lead!');
    const lead = screen.getByRole('article', { name: 'Lead: Maya Okafor' });
    expect(within(lead).getByRole('heading', { name: 'Maya Okafor' })).toBeVisible();
    expect(within(lead).getByText('Brightwater Solar')).toBeVisible();
    expect(within(lead).getByRole('link', { name: 'maya@brightwater.example' })).toBeVisible();
    expect(within(lead).getByText('Solar quote')).toBeVisible();
    const accept = screen.getByRole('button', { name: 'Call' });
    expect(accept).toHaveFocus();
    expect(accept).toHaveAttribute('aria-keyshortcuts', 'a');
    expect(screen.getByRole('button', { name: 'Ignore' })).toBeEnabled();

    await user.click(accept);
    const timer = await screen.findByRole('timer');
    expect(timer).toHaveTextContent('00:00');
    expect(call.status()).toBe('open');
    act(() => platform.clock.tick(999));
    expect(timer).toHaveTextContent('00:00');
    act(() => platform.clock.tick(1));
    expect(timer).toHaveTextContent('00:01');

    act(() => call.reportVolume(0.3, 0.1));
    expect(screen.getByRole('meter', { name: 'Mic level' })).toHaveAttribute('aria-valuenow', '3');
    expect(screen.getByRole('meter', { name: 'Speaker level' })).toHaveAttribute(
      'aria-valuenow',
      '2',
    );

    await user.click(screen.getByRole('button', { name: 'Mute' }));
    const muted = await screen.findByRole('button', { name: 'Muted' });
    expect(muted).toHaveAttribute('aria-pressed', 'true');
    expect(call.invocations).toContain('mute(true)');
    expect(call.isMuted()).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Hang Up' }));
    expect(await screen.findByRole('heading', { name: 'Call Result' })).toBeVisible();
    expect(banner()).toHaveTextContent('Call Ended');
    expect(call.status()).toBe('closed');
    expect(screen.queryByRole('timer')).toBeNull();
    for (const name of ['Contacted', 'Voicemail', 'Missed', 'Remove']) {
      expect(screen.getByRole('button', { name })).toBeEnabled();
    }

    await user.click(screen.getByRole('button', { name: 'Contacted' }));
    const done = await screen.findByRole('button', { name: 'Done' });
    const [disposition] = server.requestsTo('POST', '/apps/webrtc/9001/disposition');
    expect(disposition?.body).toEqual({ status: 'contacted' });
    expect(disposition?.headers.get('X-CSRF-TOKEN')).toBe('csrf-dana');
    expect(screen.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect(done).toHaveFocus();

    await user.click(done);
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(banner()).toBeEmptyDOMElement();
  });

  it('Add Note: Save is disabled while the note is empty, then saves it', async () => {
    const { user, server, ready, ring } = renderApp();
    await ready();
    await ring();
    await user.click(screen.getByRole('button', { name: 'Call' }));
    await user.click(await screen.findByRole('button', { name: 'Hang Up' }));
    await user.click(await screen.findByRole('button', { name: 'Voicemail' }));
    await user.click(await screen.findByRole('button', { name: 'Add Note' }));

    const note = await screen.findByRole('textbox', { name: 'Note' });
    expect(note).toHaveFocus();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await user.type(note, '   ');
    expect(save).toBeDisabled();
    await user.clear(note);
    await user.type(note, 'Left a voicemail; call back Tuesday');
    expect(save).toBeEnabled();
    await user.click(save);

    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/notes')[0]?.body).toEqual({
      content: 'Left a voicemail; call back Tuesday',
      call_id: 9001,
    });
  });

  it('Add Note: Skip goes back to waiting without saving', async () => {
    const { user, server, ready, ring } = renderApp();
    await ready();
    await ring();
    await user.click(screen.getByRole('button', { name: 'Call' }));
    await user.click(await screen.findByRole('button', { name: 'Hang Up' }));
    await user.click(await screen.findByRole('button', { name: 'Missed' }));
    await user.click(await screen.findByRole('button', { name: 'Add Note' }));
    await user.click(await screen.findByRole('button', { name: 'Skip' }));
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/notes')).toEqual([]);
  });

  it('keyboard shortcuts run the same actions', async () => {
    const { user, server, phone, ready, ring } = renderApp();
    await ready();

    const ignored = await ring();
    await user.keyboard('i');
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(ignored.invocations).toEqual(['reject']);
    await waitFor(() =>
      expect(server.requestsTo('POST', '/apps/webrtc/9001/reject')).toHaveLength(1),
    );

    const call = await ring();
    await user.keyboard('a');
    expect(await screen.findByRole('timer')).toBeVisible();
    expect(call.status()).toBe('open');
    await user.keyboard('m');
    expect(await screen.findByRole('button', { name: 'Muted' })).toBeVisible();
    await user.keyboard('m');
    expect(await screen.findByRole('button', { name: 'Mute' })).toBeVisible();
    expect(call.invocations).toEqual(['accept', 'mute(true)', 'mute(false)']);
    await user.keyboard('h');
    expect(await screen.findByRole('heading', { name: 'Call Result' })).toBeVisible();
    await user.keyboard('r');
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect(server.requestsTo('POST', '/apps/webrtc/9001/disposition')[0]?.body).toEqual({
      status: 'removed',
    });
    await user.keyboard('a');
    const note = await screen.findByRole('textbox', { name: 'Note' });
    // Letters typed into the note are text, not shortcuts.
    await user.keyboard('Sad; hang up');
    expect(note).toHaveValue('Sad; hang up');
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/notes')[0]?.body).toEqual({
      content: 'Sad; hang up',
      call_id: 9001,
    });
    expect(phone.device.calls).toHaveLength(2);
  });

  it('auto-accepts when the server says so', async () => {
    const { platform, ready, ringOnly } = renderApp({
      callUsers: { [LEAD]: demoCallUser({ autoaccept: true }) },
    });
    await ready();
    const call = ringOnly();
    expect(await screen.findByRole('timer')).toHaveTextContent('00:00');
    expect(call.invocations).toEqual(['accept']);
    expect(screen.queryByRole('button', { name: 'Call' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Hang Up' })).toBeEnabled();
    act(() => platform.clock.tick(61_000));
    expect(screen.getByRole('timer')).toHaveTextContent('01:01');
  });

  it('an inbound call shows its number name, thanks, and resets after 2000 ms', async () => {
    const { user, platform, ready, ring } = renderApp();
    await ready();
    await ring(INBOUND);
    expect(banner()).toHaveTextContent('Sales line');
    await user.click(screen.getByRole('button', { name: 'Accept' }));
    await user.click(await screen.findByRole('button', { name: 'Hang Up' }));
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect(banner()).toHaveTextContent('Call Ended');
    act(() => platform.clock.tick(1_999));
    expect(screen.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
    act(() => platform.clock.tick(1));
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
  });

  it("a call error alerts 'Connection error code 8' and resets", async () => {
    const { user, platform, ready, ring } = renderApp();
    await ready();
    const call = await ring();
    await user.click(screen.getByRole('button', { name: 'Call' }));
    await screen.findByRole('timer');
    act(() => void call.fail(31000, 'Error processing answer'));
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
    expect(platform.alerts).toEqual(['Connection error code 8']);
  });

  it('the caller giving up resets to waiting', async () => {
    const { ready, ring } = renderApp();
    await ready();
    const call = await ring();
    act(() => call.cancelByCaller());
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
  });

  it('a result the server refuses is reported under the console; the agent has moved on', async () => {
    const { user, server, ready, ring } = renderApp();
    await ready();
    await ring();
    await user.click(screen.getByRole('button', { name: 'Call' }));
    await user.click(await screen.findByRole('button', { name: 'Hang Up' }));
    server.refuseNext('POST', '/apps/webrtc/9001/disposition', 422, 'The call has ended long ago.');
    await user.click(await screen.findByRole('button', { name: 'Contacted' }));
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Call Result not saved: The call has ended long ago.');
    await user.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('after-call writes carry an idempotency key and say Saving… then Saved', async () => {
    const { user, server, ready, ring, platform } = renderApp();
    await ready();
    await ring();
    await user.click(screen.getByRole('button', { name: 'Call' }));
    await user.click(await screen.findByRole('button', { name: 'Hang Up' }));
    const release = server.hold();
    await user.click(await screen.findByRole('button', { name: 'Voicemail' }));
    expect(await screen.findByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect(await screen.findByText('Saving…')).toBeVisible();
    release();
    expect(await screen.findByText('Saved')).toBeVisible();
    // Only for a moment.
    act(() => platform.clock.tick(SAVED_SHOWN_MS));
    expect(screen.queryByText('Saved')).toBeNull();
    const [sent] = server.requestsTo('POST', '/apps/webrtc/9001/disposition');
    expect(sent?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('session', () => {
  it('a server that cannot be reached at load is waited for, not taken for a lost session', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    let reachable = false;
    const fetch: typeof server.fetch = (url, init) =>
      reachable ? server.fetch(url, init) : Promise.reject(new TypeError('Failed to fetch'));
    const platform = createFakePlatform(fetch);
    platform.network.set(false);
    render(
      <App
        phoneFactory={new FakePhone().factory}
        platform={platform}
        queryClient={createQueryClient()}
      />,
    );
    expect(await screen.findByText(/Cannot reach the server/)).toBeVisible();
    expect(screen.queryByRole('heading', { name: 'Log in' })).toBeNull();
    // Back online: it tries at once (not at the next back-off) and opens the console.
    reachable = true;
    act(() => platform.network.set(true));
    expect(await screen.findByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
  });

  it('a 401 after the user was loaded reloads the page', async () => {
    const { server, platform, ready, ringOnly } = renderApp();
    await ready();
    server.expireSession();
    ringOnly();
    await waitFor(() => expect(platform.reloadCount).toBe(1));
    expect(server.requestsTo('GET', '/api/v1/callusers/42')).toHaveLength(1);
  });

  it('the profile menu shows the user, follows the network, and logs out', async () => {
    const { user, platform, phone, server, ready } = renderApp();
    await ready();
    const profile = screen.getByRole('button', { name: /^Dana Whitfield\s*, Online$/ });
    expect(profile).toHaveAttribute('aria-expanded', 'false');
    act(() => platform.network.set(false));
    expect(profile).toHaveAccessibleName(/^Dana Whitfield\s*, Offline$/);
    act(() => platform.network.set(true));

    await user.click(profile);
    expect(profile).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('dana@example.com')).toBeVisible();
    expect(screen.getByText('+1 555 010 0199')).toBeVisible();
    await user.keyboard('{Escape}');
    expect(profile).toHaveAttribute('aria-expanded', 'false');
    expect(profile).toHaveFocus();

    await user.click(profile);
    await user.click(screen.getByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/user/logout')).toHaveLength(1);
    expect(phone.device.state).toBe('destroyed');
    expect(screen.queryByRole('button', { name: /Dana Whitfield/ })).toBeNull();
  });

  it('the profile menu logs out everywhere: every session of the user ends', async () => {
    const { user, phone, server, ready } = renderApp();
    await ready();
    await user.click(screen.getByRole('button', { name: /^Dana Whitfield\s*, Online$/ }));
    await user.click(screen.getByRole('button', { name: 'Log out everywhere' }));
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeVisible();
    expect(server.requestsTo('POST', '/api/v1/user/logout-everywhere')).toHaveLength(1);
    expect(server.requestsTo('POST', '/api/v1/user/logout')).toHaveLength(0);
    expect(phone.device.state).toBe('destroyed');
  });
});
