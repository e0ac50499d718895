/**
 * Signed webhooks are deduplicated in the database (issue 36 item 6): two instances share one
 * database, each with its own webhook routes and its own provider state (a recorder of what
 * reaches the provider). A signed Twilio status or recording callback, or a Pusher presence
 * webhook, reaches a provider once however often and wherever it is delivered; the next callback
 * of the same leg (another SequenceNumber), another recording, another Pusher post are handled.
 * An unsigned post records no receipt. Receipts are deleted after a day (injected clock).
 *
 * On PGlite, and on PostgreSQL with `DATABASE_URL` (scripts/test.mjs POSTGRES_PASS: src/http).
 */
import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count } from 'drizzle-orm';
import type { Database } from '../db/database';
import { webhookReceipts } from '../db/schema';
import { PUSHER_WEBHOOK_PATH, presenceWebhookRoutes } from '../realtime/presence-webhooks';
import { openTestDatabase } from '../test-support/test-database';
import { twilioWebhookRoutes } from '../twilio/twilio-webhooks';
import { WEBHOOK_RECEIPT_TTL_MS, WebhookReceipts } from './webhook-receipts';

const AUTH_TOKEN = 'f'.repeat(32);
const BASE = 'https://calls.example.com';
const PUSHER = { appId: '42', key: 'app-key', secret: 'app-secret-0123456789', cluster: 'us2' };

/** One instance: its routes and what reached its provider. */
interface Instance {
  app: FastifyInstance;
  statuses: Array<Record<string, string>>;
  recordings: Array<Record<string, string>>;
  presence: string[];
}

let database: Database;
let a: Instance;
let b: Instance;

async function instance(): Promise<Instance> {
  const seen: Instance = { app: Fastify(), statuses: [], recordings: [], presence: [] };
  const receipts = new WebhookReceipts({ db: database.db });
  await seen.app.register(
    twilioWebhookRoutes({
      telephony: {
        handleStatus: (_query, params) => void seen.statuses.push(params),
        handleRecording: (_query, params) => void seen.recordings.push(params),
      },
      authToken: AUTH_TOKEN,
      publicBaseUrl: BASE,
      voice: () => Promise.resolve('<Response/>'),
      receipts,
    }),
  );
  await seen.app.register(
    presenceWebhookRoutes({
      credentials: PUSHER,
      onPresence: (channel, userId, present) =>
        seen.presence.push(`${channel} ${userId} ${present}`),
      receipts,
    }),
  );
  return seen;
}

beforeAll(async () => {
  database = await openTestDatabase();
  a = await instance();
  b = await instance();
});
afterAll(async () => {
  await a.app.close();
  await b.app.close();
  await database.close();
});

/** Posts `params` to `url` as Twilio does, signed unless `signed` is false. */
const twilioPost = (to: Instance, url: string, params: Record<string, string>, signed = true) =>
  to.app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signed
        ? {
            'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, BASE + url, params),
          }
        : {}),
    },
    payload: new URLSearchParams(params).toString(),
  });

const pusherPost = (to: Instance, body: string) =>
  to.app.inject({
    method: 'POST',
    url: PUSHER_WEBHOOK_PATH,
    headers: {
      'content-type': 'application/json',
      'x-pusher-key': PUSHER.key,
      'x-pusher-signature': createHmac('sha256', PUSHER.secret).update(body).digest('hex'),
    },
    payload: body,
  });

const receiptRows = async () =>
  (await database.db.select({ n: count() }).from(webhookReceipts))[0]!.n;

describe('Twilio callbacks', () => {
  it('a status callback reaches a provider once, wherever and however often it is delivered', async () => {
    const url = '/twilio/status?call=CAours&label=agent-1';
    const answered = { CallSid: 'CAleg1', CallStatus: 'in-progress', SequenceNumber: '2' };
    for (const to of [a, a, b, b])
      expect((await twilioPost(to, url, answered)).statusCode).toBe(204);
    expect(a.statuses).toEqual([answered]);
    expect(b.statuses).toEqual([]);
    // The leg's next callback is another receipt.
    const completed = { CallSid: 'CAleg1', CallStatus: 'completed', SequenceNumber: '3' };
    expect((await twilioPost(b, url, completed)).statusCode).toBe(204);
    expect((await twilioPost(a, url, completed)).statusCode).toBe(204);
    expect(b.statuses).toEqual([completed]);
    expect(a.statuses).toEqual([answered]);
  });

  it('a conference event (no leg) and a participant event are told apart by their event and sequence', async () => {
    const start = {
      FriendlyName: 'CAconf',
      ConferenceSid: 'CF1',
      StatusCallbackEvent: 'conference-start',
      SequenceNumber: '1',
    };
    const end = { ...start, StatusCallbackEvent: 'conference-end', SequenceNumber: '9' };
    for (const [to, params] of [
      [a, start],
      [b, start],
      [b, end],
      [a, end],
    ] as const) {
      expect((await twilioPost(to, '/twilio/status', params)).statusCode).toBe(204);
    }
    expect(a.statuses).toContainEqual(start);
    expect(b.statuses).toContainEqual(end);
    expect([...a.statuses, ...b.statuses].filter((p) => p.FriendlyName === 'CAconf')).toHaveLength(
      2,
    );
  });

  it('a recording callback reaches a provider once; another recording is handled', async () => {
    const recording = {
      FriendlyName: 'CArec',
      RecordingSid: 'RE1',
      RecordingStatus: 'completed',
      RecordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1',
      RecordingDuration: '7',
    };
    for (const to of [b, a, b]) {
      expect((await twilioPost(to, '/twilio/recording', recording)).statusCode).toBe(204);
    }
    expect(b.recordings).toEqual([recording]);
    expect(a.recordings).toEqual([]);
    const another = {
      ...recording,
      RecordingSid: 'RE2',
      RecordingUrl: `${recording.RecordingUrl.slice(0, -1)}2`,
    };
    expect((await twilioPost(a, '/twilio/recording', another)).statusCode).toBe(204);
    expect(a.recordings).toEqual([another]);
  });

  it('an unsigned post records no receipt: the signed delivery after it is handled', async () => {
    const url = '/twilio/status?call=CAforged&label=agent-1';
    const params = { CallSid: 'CAleg9', CallStatus: 'ringing', SequenceNumber: '1' };
    const rows = await receiptRows();
    expect((await twilioPost(a, url, params, false)).statusCode).toBe(403);
    expect(await receiptRows()).toBe(rows);
    expect((await twilioPost(b, url, params)).statusCode).toBe(204);
    expect(b.statuses).toContainEqual(params);
  });
});

describe('Pusher presence webhooks', () => {
  it('a post reaches a listener once, wherever it is delivered; the next post is handled', async () => {
    const first = JSON.stringify({
      time_ms: 1_764_000_000_000,
      events: [{ name: 'member_added', channel: 'presence-user-7', user_id: '7' }],
    });
    for (const to of [a, b, a]) expect((await pusherPost(to, first)).statusCode).toBe(200);
    expect([...a.presence, ...b.presence]).toEqual(['presence-user-7 7 true']);
    const next = JSON.stringify({
      time_ms: 1_764_000_000_500,
      events: [{ name: 'member_removed', channel: 'presence-user-7', user_id: '7' }],
    });
    expect((await pusherPost(b, next)).statusCode).toBe(200);
    expect(b.presence).toEqual(['presence-user-7 7 false']);
  });
});

describe('expiry', () => {
  it('deletes receipts a day old; newer ones stay', async () => {
    const now = { at: Date.parse('2026-11-24T12:00:00Z') };
    const receipts = new WebhookReceipts({ db: database.db, now: () => new Date(now.at) });
    expect(await receipts.firstTime('test:old')).toBe(true);
    now.at += WEBHOOK_RECEIPT_TTL_MS / 2;
    expect(await receipts.firstTime('test:new')).toBe(true);
    expect(await receipts.firstTime('test:old')).toBe(false);
    now.at += WEBHOOK_RECEIPT_TTL_MS / 2 + 1;
    await receipts.sweep();
    const keys = (await database.db.select({ key: webhookReceipts.key }).from(webhookReceipts))
      .map((row) => row.key)
      .filter((key) => key.startsWith('test:'));
    expect(keys).toEqual(['test:new']);
  });
});
