/**
 * The console on the Twilio provider (issue 20): the built product started with
 * `TELEPHONY_PROVIDER=twilio` in production mode (Twilio runs only there, issue 36) on a scratch
 * PostgreSQL database holding an operator's account (no demo login: production refuses them),
 * Twilio's REST API replaced by the loopback stand-in (`TWILIO_API_BASE_URL`). Needs PostgreSQL
 * (`DATABASE_URL` or `TEST_POSTGRES_URL`, which CI sets): production refuses PGlite. Chromium resolves no host but 127.0.0.1, so the official SDK's
 * attempts to reach Twilio's edge fail inside the browser and nothing leaves the machine.
 *
 * The agent logs in; the console loads the official `@twilio/voice-sdk` pointed at Twilio's edge
 * (no `chunderw` override), fetches a Twilio Voice token for the agent (verified against the
 * API secret), and says plainly that the phone cannot reach the call service, while the agent
 * is online through the console's presence channel; a posted lead makes the REST call that
 * would ring the agent's browser. Screenshots at 360 and 1280 px.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { request, type APIRequestContext, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TwilioApiStandIn } from '../apps/server/src/test-support/twilio-api-stand-in';
import {
  OPERATOR_PASSWORD,
  seedOperatorAccount,
} from '../apps/server/src/test-support/operator-account';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../apps/server/src/test-support/persisted-database';
import { TWILIO_TEST_ENV } from '../apps/server/src/test-support/twilio-leadline';
import { launchChromium, loopbackOnlyContext, toneWav } from './support/browser';
import { screenshotsAtBothWidths } from './support/console';
import { startProduct, type Product } from './support/product';

/** The PostgreSQL server production runs on here. */
const postgresUrl = process.env.DATABASE_URL ?? process.env.TEST_POSTGRES_URL;
/** The operator's lead-intake key (production has no demo key). */
const LEAD_API_KEY = 'twilio-console-lead-source-key-0123456789';
const AGENT = 'agent@operator.example';

let standIn: TwilioApiStandIn;
let database: PersistedDatabase | undefined;
let product: Product;
let browser: Browser;
let http: APIRequestContext;

beforeAll(async () => {
  if (!postgresUrl) return;
  standIn = await TwilioApiStandIn.start();
  standIn.numbers = ['+15550100999'];
  standIn.apiKey = TWILIO_TEST_ENV.TWILIO_API_KEY;
  database = await createPersistedDatabase(
    mkdtempSync(join(tmpdir(), 'leadline-twilio-db-')),
    postgresUrl,
  );
  const seeded = await database.open();
  await seedOperatorAccount(seeded.db, { callerNumber: '+15550100999', agents: [AGENT] });
  await seeded.close();
  product = await startProduct({
    LEADLINE_MODE: 'production',
    ...database.env,
    TOKEN_SECRET: 'twilio-console-token-secret-0123456789abcdef',
    PUSHER_SECRET: 'twilio-console-pusher-secret-0123',
    LEADLINE_API_KEY: LEAD_API_KEY,
    ...TWILIO_TEST_ENV,
    TWILIO_API_BASE_URL: standIn.url,
  });
  browser = await launchChromium(await toneWav(1000), {
    // Nothing but loopback resolves: the SDK's edge and insights hosts fail in the browser.
    extraArgs: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  http = await request.newContext();
});
afterAll(async () => {
  await http?.dispose();
  await browser?.close();
  await product?.stop();
  await standIn?.close();
  await database?.drop();
});

describe.runIf(postgresUrl)('production on Twilio', () => {
  it('logs in on the official SDK with a Twilio token; a posted lead rings the agent through the REST API', async () => {
    const { context, foreignRequests } = await loopbackOnlyContext(browser);
    const page = await context.newPage();
    const tokens: string[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/v1/twilio/token2') {
        void response.json().then((body: { token: string }) => tokens.push(body.token));
      }
    });
    // The console's presence channel subscribed on its realtime socket (what makes it online).
    const presence = new Promise<string>((resolve) => {
      page.on('websocket', (ws) =>
        ws.on('framereceived', ({ payload }) => {
          if (typeof payload !== 'string') return;
          const frame = JSON.parse(payload) as { event?: string; channel?: string };
          if (
            frame.event === 'pusher_internal:subscription_succeeded' &&
            frame.channel?.startsWith('presence-user-')
          ) {
            resolve(frame.channel);
          }
        }),
      );
    });
    await page.goto(product.url);
    await page.getByLabel('Email').fill(AGENT);
    await page.getByLabel('Password').fill(OPERATOR_PASSWORD);
    await page.getByRole('button', { name: 'Login' }).click();
    await expect
      .poll(() => page.getByText('Waiting for lead...').isVisible(), { timeout: 20_000 })
      .toBe(true);

    // The token the console fetched is a Twilio Voice token for this agent.
    await expect.poll(() => tokens.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const channel = await presence;
    const userId = channel.slice('presence-user-'.length);
    const { payload, protectedHeader } = await jwtVerify(
      tokens[0]!,
      new TextEncoder().encode(TWILIO_TEST_ENV.TWILIO_API_SECRET),
      { algorithms: ['HS256'] },
    );
    expect(protectedHeader).toMatchObject({ cty: 'twilio-fpa;v=1' });
    expect(payload).toMatchObject({
      iss: TWILIO_TEST_ENV.TWILIO_API_KEY,
      sub: TWILIO_TEST_ENV.TWILIO_ACCOUNT_SID,
      grants: { identity: userId, voice: { incoming: { allow: true } } },
    });

    // The official SDK tries Twilio's own edge (no chunderw override), which nothing resolves here.
    await expect
      .poll(() => foreignRequests.some((url) => url.includes('.twilio.com')), { timeout: 20_000 })
      .toBe(true);
    expect(foreignRequests.filter((url) => !new URL(url).hostname.endsWith('.twilio.com'))).toEqual(
      [],
    );

    // A lead posted with the API key: the REST call that rings the agent's browser through Twilio.
    const posted = await http.post(`${product.url}/api/v1/leads`, {
      headers: { authorization: `Bearer ${LEAD_API_KEY}` },
      data: { fname: 'Twyla', lname: 'Lead', phone_number: '+15550100078' },
    });
    expect(posted.status()).toBe(201);
    await expect
      .poll(
        () =>
          standIn.requests.find(
            (r) =>
              r.method === 'POST' &&
              /\/Conferences\/CA[0-9a-f]{32}\/Participants\.json$/.test(r.path),
          )?.form,
        { timeout: 20_000 },
      )
      .toMatchObject({
        Label: `agent-${userId}`,
        To: expect.stringMatching(new RegExp(`^client:${userId}\\?`)) as string,
      });

    const dir = mkdtempSync(join(tmpdir(), 'leadline-twilio-shots-'));
    await screenshotsAtBothWidths(page, dir, 'twilio-console');
    await context.close();
  });
});
