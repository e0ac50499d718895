/**
 * Caller numbers with Twilio (issue 37): only numbers the operator assigned to the account
 * (`npm run admin -- assign-number`, here its service) that the Twilio account holds may be
 * added, and `GET /api/v1/admin/caller-numbers/available` lists them, read from Twilio's REST API
 * (IncomingPhoneNumbers) when asked: here the loopback stand-in of that API, through the
 * production REST client and `twilioNumberInventory`. The admin routes run on an application
 * built as a Twilio install's (its `numbers` service), sharing the test world's database. The
 * rules between accounts are in `number-assignments.integration.test.ts`.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { count, eq } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { AccessTokens } from '../auth/access-token';
import { LoginThrottle } from '../auth/login-throttle';
import { hashPassword } from '../auth/password';
import { SessionStore } from '../auth/sessions';
import { auditLog, callerNumbers, users } from '../db/schema';
import { SYSTEM_ACTOR } from './audit';
import { NUMBER_NOT_ASSIGNED, assignNumber } from './number-assignments';
import { DEMO_PASSWORD } from '../db/seed';
import { HttpSession } from '../test-support/http-session';
import { TwilioApiStandIn, standInClient } from '../test-support/twilio-api-stand-in';
import { PRODUCTION_TEST_PASSWORD } from '../test-support/production-logins';
import { startTwilioLeadline } from '../test-support/twilio-leadline';
import {
  TEST_PUSHER,
  TEST_TOKEN_SECRET,
  login,
  startTestApp,
  type Agent,
  type TestApp,
} from '../test-support/test-app';
import { twilioNumberInventory } from '../twilio/twilio-number-inventory';

let t: TestApp;
let standIn: TwilioApiStandIn;
let app: FastifyInstance;
let admin: Agent;

beforeAll(async () => {
  t = await startTestApp();
  standIn = await TwilioApiStandIn.start();
  standIn.numbers = ['+15005550006', '+15005550007', '+15550142000', '+15550156671'];
  const { db } = t.database;
  const inventory = twilioNumberInventory(standInClient(standIn));
  // The operator gives the demo account two more of the Twilio account's numbers (the seed
  // assigned it its main line, and account 6671 its own).
  for (const number of ['+15005550006', '+15005550007']) {
    await assignNumber(db, SYSTEM_ACTOR, 1, number, inventory);
  }
  app = await buildApp(
    {
      db,
      sessions: new SessionStore(db, 3_600_000),
      tokens: new AccessTokens(TEST_TOKEN_SECRET, 3600),
      loginThrottle: new LoginThrottle(db),
      pusher: TEST_PUSHER,
      numbers: inventory,
      // The call routes are not what this test asks about.
      relayTo: 'http://127.0.0.1:9',
    },
    {
      logger: pino({ level: 'silent' }),
      trustProxy: false,
      webDistDir: '/nonexistent',
      relaySecret: 'catalog-admin-twilio-token-secret-0123456789',
    },
  );
  await db.insert(users).values({
    accountId: 1,
    email: 'catalog.admin@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Ada Admin',
    role: 'admin',
  });
  admin = await login(app, 'catalog.admin@example.com');
}, 60_000);
afterAll(async () => {
  await app?.close();
  await standIn?.close();
  await t?.close();
});

function send(method: InjectOptions['method'], url: string, payload?: unknown) {
  return app.inject({
    method,
    url,
    headers: { cookie: admin.cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': admin.csrf }) },
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

const numbersRead = () =>
  standIn.requests.filter((r) => r.path.endsWith('/IncomingPhoneNumbers.json'));

describe('caller numbers with Twilio', () => {
  it("lists the Twilio account's numbers assigned to this account, marking those in use and leaving out another account's", async () => {
    const before = numbersRead().length;
    const res = await send('GET', '/api/v1/admin/caller-numbers/available');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        {
          phone_number: '+15005550006',
          phone_number_formatted: '+1 500 555 0006',
          friendly_name: '+15005550006',
          in_use: false,
        },
        {
          phone_number: '+15005550007',
          phone_number_formatted: '+1 500 555 0007',
          friendly_name: '+15005550007',
          in_use: false,
        },
        // The demo's main line is already this account's caller number; +15550156671 is
        // assigned to account 6671.
        {
          phone_number: '+15550142000',
          phone_number_formatted: '+1 555 014 2000',
          friendly_name: '+15550142000',
          in_use: true,
        },
      ],
      provider_checked: true,
    });
    // Asked now, not remembered from the start.
    expect(numbersRead().length).toBe(before + 1);
  });

  it('adds an assigned number the Twilio account holds; refuses one not assigned, and an assigned one it does not hold (422), nothing stored', async () => {
    const audits = async () => (await t.database.db.select({ n: count() }).from(auditLog))[0]!.n;
    // Assigned while Twilio held it (recorded without asking, as in embedded mode); released since.
    await assignNumber(t.database.db, SYSTEM_ACTOR, 1, '+15550109997');
    const auditsBefore = await audits();
    const stored = (phone: string) =>
      t.database.db.select().from(callerNumbers).where(eq(callerNumbers.phoneNumber, phone));
    const refused = await send('POST', '/api/v1/admin/caller-numbers', {
      name: 'Not ours',
      phone_number: '+15550109999',
    });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual({ error: NUMBER_NOT_ASSIGNED });
    expect(NUMBER_NOT_ASSIGNED).toBe(
      'This number is not assigned to your account: ask your Leadline operator to assign it to you.',
    );
    const released = await send('POST', '/api/v1/admin/caller-numbers', {
      name: 'Released',
      phone_number: '+15550109997',
    });
    expect(released.statusCode, released.body).toBe(422);
    expect(released.json()).toEqual({
      error: "This number is not one of your Twilio account's numbers.",
    });
    expect(await stored('+15550109999')).toEqual([]);
    expect(await stored('+15550109997')).toEqual([]);
    expect(await audits()).toBe(auditsBefore);

    const added = await send('POST', '/api/v1/admin/caller-numbers', {
      name: 'Twilio line',
      phone_number: '+1 500 555 0007',
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ data: { phone_number: '+15005550007' } });
    const listed = await send('GET', '/api/v1/admin/caller-numbers/available');
    expect(
      listed.json<{ data: Array<{ phone_number: string; in_use: boolean }> }>().data,
    ).toContainEqual(expect.objectContaining({ phone_number: '+15005550007', in_use: true }));

    // A number changed by PATCH is checked the same way.
    const { id } = added.json<{ data: { id: number } }>().data;
    for (const [phone, error] of [
      ['+15550109998', NUMBER_NOT_ASSIGNED],
      ['+15550109997', "This number is not one of your Twilio account's numbers."],
    ]) {
      const patched = await send('PATCH', `/api/v1/admin/caller-numbers/${id}`, {
        phone_number: phone,
      });
      expect(patched.statusCode).toBe(422);
      expect(patched.json()).toEqual({ error });
    }
    expect((await stored('+15005550007')).map((row) => row.id)).toEqual([id]);
  });

  it('answers 503 with a sentence when Twilio refuses to list the numbers', async () => {
    standIn.apiKey = 'SK-someone-else';
    try {
      const res = await send('GET', '/api/v1/admin/caller-numbers/available');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        success: false,
        error:
          "Twilio could not be asked for the account's numbers just now. Try again in a moment.",
      });
      const add = await send('POST', '/api/v1/admin/caller-numbers', {
        name: 'While down',
        phone_number: '+15005550006',
      });
      expect(add.statusCode).toBe(503);
    } finally {
      standIn.apiKey = undefined;
    }
  });
});

describe('the product started with TELEPHONY_PROVIDER=twilio', () => {
  it("checks caller numbers against the numbers assigned to the account from the Twilio account's", async () => {
    const product = await startTwilioLeadline();
    try {
      await product.db.insert(users).values({
        accountId: 1,
        email: 'catalog.admin@example.com',
        passwordHash: await hashPassword(PRODUCTION_TEST_PASSWORD),
        fullName: 'Ada Admin',
        role: 'admin',
      });
      // The operator assigns the Twilio account's numbers to the demo account.
      for (const number of product.standIn.numbers) {
        await assignNumber(product.db, SYSTEM_ACTOR, 1, number, product.leadline.twilio!.inventory);
      }
      // Production: the demo's password signs nobody in.
      const session = await HttpSession.login(
        product.url,
        'catalog.admin@example.com',
        PRODUCTION_TEST_PASSWORD,
      );
      const available = await session.api('GET', '/api/v1/admin/caller-numbers/available');
      expect(available.status).toBe(200);
      expect(available.body).toMatchObject({
        provider_checked: true,
        data: product.standIn.numbers.map((number) => ({ phone_number: number })),
      });
      const refused = await session.api('POST', '/api/v1/admin/caller-numbers', {
        name: 'Not held',
        phone_number: '+15550100222',
      });
      expect([refused.status, refused.body]).toEqual([422, { error: NUMBER_NOT_ASSIGNED }]);
      const added = await session.api('POST', '/api/v1/admin/caller-numbers', {
        name: 'Held',
        phone_number: product.standIn.numbers[1],
      });
      expect(added.status).toBe(201);
    } finally {
      await product.close();
    }
  }, 60_000);
});
