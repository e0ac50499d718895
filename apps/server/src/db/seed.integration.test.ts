/**
 * The accounts the spec names by id, seeded with their behaviour as account settings (the
 * console reads the settings, not the ids): spec §2 and §6, "6671 (… hidden email …)" and
 * "9920 (formatted phone on lead card)". Each account's seeded agent signs in and reads its
 * user, as the console does.
 */
import type { User } from '@leadline/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startTestApp, type TestApp } from '../test-support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The user `GET /api/v1/user` answers to the agent of `email`. */
async function userOf(email: string): Promise<User> {
  const { cookie } = await login(t.app, email);
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/user', headers: { cookie } });
  return res.json<{ user: User }>().user;
}

describe('the seeded special accounts (spec §2, §6)', () => {
  it("spec §6: account 6671 hides the lead's e-mail", async () => {
    const user = await userOf('agent@a6671.example.com');
    expect(user.account_id).toBe(6671);
    expect(user.settings.hide_lead_email).toBe(true);
    expect(user.settings.lead_card_shows_phone).not.toBe(true);
  });

  it('spec §6: account 9920 shows the formatted phone on the lead card', async () => {
    const user = await userOf('agent@a9920.example.com');
    expect(user.account_id).toBe(9920);
    expect(user.settings.lead_card_shows_phone).toBe(true);
    expect(user.settings.hide_lead_email).not.toBe(true);
  });

  it('the demo account does neither', async () => {
    const user = await userOf('agent1@example.com');
    expect(user.settings.hide_lead_email).not.toBe(true);
    expect(user.settings.lead_card_shows_phone).not.toBe(true);
  });
});
