/**
 * `LEADLINE_MODE=production TELEPHONY_PROVIDER=twilio npm start` with Twilio's API replaced by
 * the loopback stand-in (`TWILIO_API_BASE_URL`): the product as `npm start` runs it (a child
 * process of `main.ts`), on PostgreSQL, with production's required secrets and no demo seed of
 * its own (the test puts an operator's account and users into the database first, as an operator
 * would create theirs; a production start refuses the demo's). An agent logs in as the console does, the console's user payload points the official
 * SDK at Twilio's edge, the token it fetches is a Twilio Voice token for them (verified against
 * the API secret), their console's realtime client puts them online, and a lead posted with the
 * API key makes the REST call that rings their browser through Twilio.
 *
 * Needs PostgreSQL (`DATABASE_URL`): production refuses PGlite. CI runs it in its second pass.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserResponse } from '@leadline/contracts';
import { ChildLeadline } from '../test-support/child-leadline';
import { HttpSession } from '../test-support/http-session';
import { OPERATOR_PASSWORD, seedOperatorAccount } from '../test-support/operator-account';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { openRealtimeClient, type RealtimeClient } from '../test-support/realtime-client';
import { TWILIO_TEST_ENV } from '../test-support/twilio-leadline';
import { waitUntil } from '../test-support/wait-until';
import { TwilioApiStandIn } from '../test-support/twilio-api-stand-in';

const LEAD_API_KEY = 'production-lead-source-key-0123456789';

let dataDir: string;
let database: PersistedDatabase | undefined;
let standIn: TwilioApiStandIn;
let product: ChildLeadline | undefined;
let realtime: RealtimeClient | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-twilio-production-'));
  standIn = await TwilioApiStandIn.start();
  standIn.numbers = ['+15550100999'];
  standIn.apiKey = TWILIO_TEST_ENV.TWILIO_API_KEY;
});

afterAll(async () => {
  realtime?.close();
  if (product) {
    await product.stop();
    await product.dispose();
  }
  await standIn?.close();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 120_000);

describe.runIf(process.env.DATABASE_URL)('production on Twilio', () => {
  it('starts, logs an agent in, gives a Twilio token and rings the agent through the REST API for a posted lead', async () => {
    database = await createPersistedDatabase(dataDir);
    const seeded = await database.open();
    await seedOperatorAccount(seeded.db, {
      callerNumber: '+15550100999',
      agents: ['agent@operator.example'],
      supervisors: ['supervisor@operator.example'],
    });
    await seeded.close();
    product = await ChildLeadline.start({
      dataDir,
      env: {
        ...database.env,
        LEADLINE_MODE: 'production',
        TOKEN_SECRET: 'production-token-secret-0123456789abcdef',
        PUSHER_SECRET: 'production-pusher-secret-0123',
        LEADLINE_API_KEY: LEAD_API_KEY,
        ...TWILIO_TEST_ENV,
        TWILIO_API_BASE_URL: standIn.url,
        TOKEN_TTL_SECONDS: '1800',
      },
    });
    // Started: it asked Twilio for the account's numbers with the API key.
    expect(standIn.requests[0]).toMatchObject({
      method: 'GET',
      path: `/2010-04-01/Accounts/${TWILIO_TEST_ENV.TWILIO_ACCOUNT_SID}/IncomingPhoneNumbers.json`,
    });

    const agent = await HttpSession.login(product.url, 'agent@operator.example', OPERATOR_PASSWORD);
    const me = await agent.api<UserResponse>('GET', `/api/v1/user?time=${Date.now()}`);
    expect(me.body.softphone).toMatchObject({ sdk: 'twilio', edge: 'twilio' });

    const { body } = await agent.api<{ token: string }>(
      'GET',
      `/api/v1/twilio/token2?time=${Date.now()}`,
    );
    const { payload, protectedHeader } = await jwtVerify(
      body.token,
      new TextEncoder().encode(TWILIO_TEST_ENV.TWILIO_API_SECRET),
      { algorithms: ['HS256'] },
    );
    expect(protectedHeader).toMatchObject({ cty: 'twilio-fpa;v=1' });
    expect(payload).toMatchObject({
      iss: TWILIO_TEST_ENV.TWILIO_API_KEY,
      sub: TWILIO_TEST_ENV.TWILIO_ACCOUNT_SID,
      grants: {
        identity: String(agent.userId),
        voice: {
          incoming: { allow: true },
          outgoing: { application_sid: TWILIO_TEST_ENV.TWILIO_TWIML_APP_SID },
        },
      },
    });
    expect(payload.exp! - payload.iat!).toBe(1800);

    // The console's realtime client joins the agent's presence channel: online with Twilio.
    realtime = await openRealtimeClient(agent);
    const supervisor = await HttpSession.login(
      product.url,
      'supervisor@operator.example',
      OPERATOR_PASSWORD,
    );
    await waitUntil(async () => {
      const list = await supervisor.api<{ data: Array<{ id: number; is_online_app: boolean }> }>(
        'GET',
        '/api/v1/users/paginated?status=all',
      );
      return list.body.data.find((row) => row.id === agent.userId)?.is_online_app
        ? true
        : undefined;
    }, 'the agent to be online in the app');

    const posted = await product.postLead({
      fname: 'Pat',
      lname: 'Production',
      phone_number: '+15550100077',
    });
    expect(posted.status).toBe(201);
    expect(posted.body.call).toMatchObject({ status: 'ringing', agent_id: agent.userId });
    const ring = await waitUntil(
      () =>
        standIn.requests.find(
          (r) => r.method === 'POST' && /\/Conferences\/[^/]+\/Participants\.json$/.test(r.path),
        ),
      "the REST call ringing the agent's browser",
    );
    expect(ring.form).toMatchObject({
      Label: `agent-${agent.userId}`,
      StatusCallback: expect.stringMatching(
        /^https:\/\/calls\.example\.com\/twilio\/status\?call=CA[0-9a-f]{32}&label=agent-/,
      ) as string,
    });
    expect(ring.form.To).toMatch(new RegExp(`^client:${agent.userId}\\?`));
    expect(new URLSearchParams(ring.form.To!.split('?')[1]).get('To')).toBe('+15550100077');
  }, 240_000);
});
