/**
 * An account set up and run without SQL (issue 37), as a new customer would: on a fresh
 * PostgreSQL database the command line makes the account and its first admin; the built product
 * starts in production mode; the admin logs in and, through the Admin screens, makes a team, an
 * agent with app-sms in it, a profile for that team with two tags, a caller number and an API
 * key for that profile. The agent logs in in a second browser; a lead posted with the new key
 * rings them, they call and hear the lead, and Contacted offers exactly the profile's two tags.
 * The admin deactivates the agent, whose console is back at the login view within 5 s.
 *
 * Needs PostgreSQL (`DATABASE_URL` or `TEST_POSTGRES_URL`, which CI sets): production refuses
 * PGlite.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../apps/server/src/test-support/persisted-database';
import {
  captureRemoteAudio,
  launchChromium,
  loopbackOnlyContext,
  remoteDominantFrequency,
  toneWav,
} from './support/browser';
import { answerButton, doneAndReady, screenshotsAtBothWidths } from './support/console';
import { startProduct, type Product } from './support/product';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const postgresUrl = process.env.DATABASE_URL ?? process.env.TEST_POSTGRES_URL;

const ADMIN_EMAIL = 'ops@northwind.example';
const ADMIN_PASSWORD = 'violet harbour lantern 42';
const AGENT_EMAIL = 'riley.quinn@northwind.example';
const AGENT_PASSWORD = 'amber meadow compass 17';
const AGENT_NAME = 'Riley Quinn';
const TAGS = [
  { name: 'Booked visit', colour: '#1a73e8' },
  { name: 'Call back later', colour: '#d93025' },
];

let database: PersistedDatabase | undefined;
let product: Product;
let browser: Browser;
let http: APIRequestContext;
let created: { account_id: number; user_id: number };

/** Runs `npm run admin -- <args>` with `stdin`; resolves with its exit code and output. */
function npmRunAdmin(
  args: string[],
  stdin: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

beforeAll(async () => {
  if (!postgresUrl) return;
  database = await createPersistedDatabase(
    mkdtempSync(join(tmpdir(), 'leadline-admin-db-')),
    postgresUrl,
  );
  const made = await npmRunAdmin(
    [
      'create-account',
      '--name',
      'Northwind Solar',
      '--admin-email',
      ADMIN_EMAIL,
      '--password-stdin',
    ],
    `${ADMIN_PASSWORD}\n`,
    database.env,
  );
  expect(made.code, made.stderr).toBe(0);
  const lastLine = made.stdout.trim().split('\n').at(-1)!;
  created = JSON.parse(lastLine) as typeof created;
  expect(Number.isInteger(created.account_id) && Number.isInteger(created.user_id)).toBe(true);
  product = await startProduct({
    LEADLINE_MODE: 'production',
    ...database.env,
    TOKEN_SECRET: 'administration-token-secret-0123456789abcdef',
    PUSHER_SECRET: 'administration-pusher-secret-0123',
    VOICE_SANDBOX_ANSWER_MS: '300',
  });
  browser = await launchChromium(await toneWav(1000));
  http = await request.newContext();
}, 240_000);

afterAll(async () => {
  await http?.dispose();
  await browser?.close();
  await product?.stop();
  await database?.drop();
});

/** Logs `email` in on the login view and waits for the waiting view. */
async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(product.url);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await expect
    .poll(() => page.getByText('Waiting for lead...').isVisible(), { timeout: 20_000 })
    .toBe(true);
}

/** The admin area and a way to open one of its sections. */
function adminArea(page: Page) {
  const area = page.getByRole('region', { name: 'Admin' });
  return {
    area,
    open: async (section: string) => {
      const entry = area
        .getByRole('navigation', { name: 'Admin sections' })
        .getByRole('button', { name: section, exact: true });
      await entry.click();
      await expect.poll(() => entry.getAttribute('aria-current')).toBe('page');
      await expect
        .poll(() => area.getByRole('heading', { level: 2 }).first().isVisible())
        .toBe(true);
    },
    /** Waits until the screen's list shows `text` (a created row). */
    listed: async (text: string) => {
      await expect
        .poll(() => area.getByRole('row').filter({ hasText: text }).count(), { timeout: 10_000 })
        .toBeGreaterThan(0);
    },
  };
}

describe.runIf(postgresUrl)('administration without SQL', () => {
  it('the command line, then the Admin screens, set up an account whose agent takes a lead', async () => {
    const admin = await loopbackOnlyContext(browser);
    const adminPage = await admin.context.newPage();
    await logIn(adminPage, ADMIN_EMAIL, ADMIN_PASSWORD);
    await adminPage
      .getByRole('navigation', { name: 'Console' })
      .getByRole('button', { name: 'Admin' })
      .click();
    const { area, open, listed } = adminArea(adminPage);
    await expect.poll(() => area.isVisible()).toBe(true);

    // A team.
    await open('Teams');
    await area.getByRole('button', { name: 'New team' }).click();
    await area.getByRole('textbox', { name: 'Name', exact: true }).fill('Closers');
    await area.getByRole('button', { name: 'Create team' }).click();
    await listed('Closers');

    // An agent in it, with app-sms.
    await open('Users');
    await area.getByRole('button', { name: 'New user' }).click();
    await area.getByLabel('Full name').fill(AGENT_NAME);
    await area.getByLabel('E-mail').fill(AGENT_EMAIL);
    await area.getByLabel('Role').selectOption('agent');
    await area.getByLabel('Password', { exact: true }).fill(AGENT_PASSWORD);
    await area.getByRole('checkbox', { name: /\(app-sms\)/ }).check();
    await area.getByRole('checkbox', { name: 'Closers' }).check();
    await area.getByRole('button', { name: 'Create user' }).click();
    await listed(AGENT_EMAIL);

    // A profile for the team, with whisper text (so Contacted asks for a tag) and two tags.
    await open('Profiles');
    await area.getByRole('button', { name: 'New profile' }).click();
    await area.getByRole('textbox', { name: 'Name', exact: true }).fill('Northwind callbacks');
    await area.getByLabel('Team').selectOption({ label: 'Closers' });
    await area.getByLabel('Whisper text and Tags & Stages after a contacted call').check();
    for (const [index, tag] of TAGS.entries()) {
      await area.getByRole('button', { name: 'Add tag' }).click();
      await area.getByLabel(`Tag ${index + 1} name`).fill(tag.name);
      await area.getByLabel(`Tag ${index + 1} colour (hex)`).fill(tag.colour);
    }
    await area.getByRole('button', { name: 'Create profile' }).click();
    await listed('Northwind callbacks');

    // A caller number for the profile.
    await open('Numbers');
    await area.getByRole('button', { name: 'New number' }).click();
    await area.getByRole('textbox', { name: 'Name', exact: true }).fill('Northwind main line');
    await area.getByRole('textbox', { name: 'Phone number' }).fill('+1 555 017 7001');
    await area.getByLabel('Profile').selectOption({ label: 'Northwind callbacks' });
    await area.getByRole('button', { name: 'Add number' }).click();
    await listed('Northwind main line');

    // An API key for the profile: shown once.
    await open('API keys');
    await area.getByRole('button', { name: 'New API key' }).click();
    await area.getByRole('textbox', { name: 'Name', exact: true }).fill('Website form');
    await area.getByLabel('Profile').selectOption({ label: 'Northwind callbacks' });
    await area.getByRole('button', { name: 'Create key' }).click();
    const keyField = area.getByRole('textbox', { name: 'API key', exact: true });
    await expect.poll(() => keyField.isVisible(), { timeout: 10_000 }).toBe(true);
    const apiKey = await keyField.inputValue();
    expect(apiKey.length).toBeGreaterThanOrEqual(32);
    await area.getByRole('button', { name: /^Done/ }).click();
    await listed('Website form');
    expect(await area.getByText(apiKey).count()).toBe(0);

    // The agent logs in in a second browser context.
    const agent = await loopbackOnlyContext(browser);
    const agentPage = await agent.context.newPage();
    await captureRemoteAudio(agentPage);
    await logIn(agentPage, AGENT_EMAIL, AGENT_PASSWORD);

    // A lead posted with the new key rings them, with that key's profile.
    const posted = await http.post(`${product.url}/api/v1/leads`, {
      headers: { authorization: `Bearer ${apiKey}` },
      data: { fname: 'Dana', lname: 'Lead', phone_number: '+15550100081' },
    });
    expect(posted.status(), await posted.text()).toBe(201);
    await expect
      .poll(() => agentPage.getByText('Incoming Lead!').isVisible(), { timeout: 20_000 })
      .toBe(true);
    await answerButton(agentPage, 'Call').click();
    // The agent hears the sandbox lead's 440 Hz.
    await expect
      .poll(async () => Math.abs(((await remoteDominantFrequency(agentPage)) ?? 0) - 440), {
        timeout: 20_000,
        interval: 500,
      })
      .toBeLessThanOrEqual(20);
    await agentPage.getByRole('button', { name: /^Hang Up/ }).click();
    await expect
      .poll(() => agentPage.getByText('Call Ended').isVisible(), { timeout: 10_000 })
      .toBe(true);

    // Contacted → Tags & Stages offers exactly the profile's two tags, in order.
    await agentPage.getByRole('button', { name: /^Contacted/ }).click();
    await expect
      .poll(() => agentPage.getByRole('heading', { name: 'Tags & Stages' }).isVisible(), {
        timeout: 10_000,
      })
      .toBe(true);
    const tagGroup = agentPage.getByRole('group', { name: 'Tags & Stages' });
    const offered = await tagGroup.locator('.btn-label').allInnerTexts();
    expect(offered.map((text) => text.trim())).toEqual(TAGS.map((tag) => tag.name));
    await tagGroup.getByRole('button', { name: TAGS[0]!.name }).click();
    await expect
      .poll(() => agentPage.getByText('Thank you!').isVisible(), { timeout: 10_000 })
      .toBe(true);
    await doneAndReady(agentPage);

    // Each admin screen at 360 and 1280 px (nothing sticks out).
    const shots = mkdtempSync(join(tmpdir(), 'leadline-admin-shots-'));
    for (const section of [
      'Users',
      'Teams',
      'Profiles',
      'Numbers',
      'API keys',
      'Account',
      'Audit',
    ]) {
      await open(section);
      await screenshotsAtBothWidths(
        adminPage,
        shots,
        `admin-${section.toLowerCase().replace(' ', '-')}`,
      );
    }
    await adminPage.setViewportSize({ width: 1280, height: 900 });

    // The audit log names who made what.
    await open('Audit');
    await expect
      .poll(() => area.getByText(/user\.create/).count(), { timeout: 10_000 })
      .toBeGreaterThan(0);

    // The admin deactivates the agent: their console shows the login view within 5 s.
    await open('Users');
    await area.getByRole('button', { name: `Deactivate ${AGENT_NAME}` }).click();
    const deactivated = adminPage.waitForResponse(
      (response) =>
        response.request().method() === 'PATCH' &&
        new URL(response.url()).pathname.startsWith('/api/v1/admin/users/'),
    );
    await area.getByRole('button', { name: 'Yes, deactivate' }).click();
    expect((await deactivated).status()).toBe(200);
    await expect
      .poll(() => agentPage.getByLabel('Email').isVisible(), { timeout: 5_000, interval: 100 })
      .toBe(true);
    // And they cannot log in again.
    await agentPage.getByLabel('Email').fill(AGENT_EMAIL);
    await agentPage.getByLabel('Password').fill(AGENT_PASSWORD);
    await agentPage.getByRole('button', { name: 'Login', exact: true }).click();
    await expect
      .poll(() => agentPage.getByText('Your login credentials are invalid.').isVisible(), {
        timeout: 10_000,
      })
      .toBe(true);

    await agent.context.close();
    await admin.context.close();
  });
});
