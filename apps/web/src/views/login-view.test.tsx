/**
 * The login view explains why single sign-on sent the browser back (`/?sso_error=<code>`), with
 * the sentence issue 36 asks for each refusal of the identity checks, and shows the server's
 * refusal of a password login for a "single sign-on only" account. The whole app, signed out,
 * on the fake server.
 */
import { render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';

function renderLogin(launchUrl = 'http://console.test/') {
  const server = new FakeApi([{ user: demoUser(), password: 'correct horse' }]);
  server.sso = true;
  const platform = createFakePlatform(server.fetch, { launchUrl });
  render(
    <App
      phoneFactory={new FakePhone().factory}
      platform={platform}
      queryClient={createQueryClient()}
    />,
  );
  return { server, platform, user: userEvent.setup() };
}

describe('the login view after a refused single sign-on', () => {
  it.each([
    [
      'identity_mismatch',
      'Your Leadline user is linked to a different sign-in account. Sign in with that account, or ask your administrator to unlink it.',
    ],
    ['identity_in_use', 'This sign-in account is already linked to another Leadline user.'],
    ['workspace_not_allowed', 'Your Google Workspace may not sign in to this Leadline account.'],
    ['tenant_not_allowed', 'Your Microsoft Entra tenant may not sign in to this Leadline account.'],
  ])('shows ?sso_error=%s as its sentence', async (code, sentence) => {
    renderLogin(`http://console.test/?sso_error=${code}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(sentence);
    expect(await screen.findByRole('link', { name: 'Log in with Google' })).toBeVisible();
  });
});

describe('password login for a single sign-on only account', () => {
  it("shows the server's refusal and stays on the login view", async () => {
    const sentence = 'Your account signs in with single sign-on only. Use Log in with Google.';
    const { server, platform, user } = renderLogin();
    server.refuseNext('POST', '/api/v1/user/login', 403, sentence);
    await user.type(await screen.findByLabelText('Email'), 'dana@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent(sentence);
    await waitFor(() => expect(server.requestsTo('POST', '/api/v1/user/login')).toHaveLength(1));
    expect(platform.reloadCount).toBe(0);
    expect(screen.getByRole('heading', { name: 'Log in' })).toBeVisible();
  });
});
