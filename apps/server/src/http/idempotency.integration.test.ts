/**
 * Idempotency keys on the console's writes (dispositions, notes, SMS), through the HTTP API on
 * a real database: a repeat is answered with the first answer and applied once, per user; bad
 * keys and reused keys change nothing; a failed request leaves the key free; an SMS claim in
 * progress is 409 and one abandoned for more than 60 s settles once; keys expire after 24 h.
 * Time moves with the flows' manual clock.
 */
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCall, type CallRow } from '../calls/calls-repo';
import { calls, idempotencyKeys, notes, profiles, smsMessages } from '../db/schema';
import {
  SandboxSmsSender,
  type OutgoingSms,
  type SmsResult,
  type SmsSender,
} from '../sms/sms-sender';
import { fingerprint } from '../test-support/db-fingerprint';
import { ManualClock } from '../test-support/manual-clock';
import { ACCOUNT_B } from '../test-support/fixture';
import { login, startTestApp, type Agent, type TestApp } from '../test-support/test-app';
import { waitUntil } from '../test-support/wait-until';
import { EXPIRY_SWEEP_MS, IDEMPOTENCY_KEY_TTL_MS, STALE_CLAIM_MS } from './idempotency';

/** The sandbox sender, whose sends wait while the test holds them. */
class HeldSmsSender implements SmsSender {
  readonly #sandbox = new SandboxSmsSender();
  #gate: Promise<void> | null = null;
  #release = () => {};
  /** Sends waiting for `release`. */
  waiting = 0;

  /** Makes the next sends wait. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#release = resolve));
  }

  /** Lets the waiting sends go on. */
  release(): void {
    this.#gate = null;
    this.#release();
  }

  async send(message: OutgoingSms): Promise<SmsResult> {
    const gate = this.#gate;
    if (gate) {
      this.waiting++;
      await gate;
      this.waiting--;
    }
    return this.#sandbox.send(message);
  }
}

const INVALID_KEY = 'The Idempotency-Key header must be 8 to 255 visible characters.';
const REUSED_KEY = 'This Idempotency-Key was already used for a different request.';
const IN_PROGRESS = 'A request with this Idempotency-Key is still being processed.';
const INTERRUPTED = 'Sending was interrupted; the SMS may not have been sent.';

let t: TestApp;
let clock: ManualClock;
const sender = new HeldSmsSender();
let agent1: Agent;
let agent2: Agent;
let agentB: Agent;
/** A finished call of account A with a phone number and a profile with tags. */
let callA: CallRow;
/** A finished call of account B. */
let callB: CallRow;

/** A call of the account, already over (the flows leave it alone). */
async function finishedCall(accountId: number, phoneNumber: string): Promise<CallRow> {
  const { db } = t.database;
  const [profile] = await db.select().from(profiles).where(eq(profiles.accountId, accountId));
  return insertCall(db, {
    accountId,
    leadId: null,
    profileId: profile!.id,
    phoneNumber,
    status: 'completed',
    endedAt: clock.now(),
  });
}

beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock, sms: sender });
  [agent1, agent2, agentB] = await Promise.all([
    login(t.app, 'agent1@example.com'),
    login(t.app, 'agent2@example.com'),
    login(t.app, `agent@a${ACCOUNT_B}.example.com`),
  ]);
  callA = await finishedCall(agent1.accountId, '+15550100042');
  callB = await finishedCall(ACCOUNT_B, '+15550106042');
});
afterAll(() => t.close());

/** A fresh key. */
const newKey = (): string => `key-${randomUUID()}`;

/** A logged-in POST, with an `Idempotency-Key` when `key` is given. */
const post = (
  agent: Agent,
  url: string,
  payload: Record<string, unknown>,
  key?: string,
): Promise<LightMyRequestResponse> =>
  t.app.inject({
    method: 'POST',
    url,
    headers: {
      cookie: agent.cookie,
      'x-csrf-token': agent.csrf,
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload,
  });

const replayed = (res: LightMyRequestResponse) => res.headers['idempotent-replayed'];

const notesWith = (content: string) =>
  t.database.db.select().from(notes).where(eq(notes.content, content));
const smsWith = (body: string) =>
  t.database.db.select().from(smsMessages).where(eq(smsMessages.body, body));
const callRow = async (id: number) =>
  (await t.database.db.select().from(calls).where(eq(calls.id, id)))[0]!;
const storedKey = async (userId: number, key: string) =>
  (
    await t.database.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)))
  )[0];

/** Sends a request that must be refused with `status` and change no row; resolves its body. */
async function refused(send: () => Promise<LightMyRequestResponse>, status: number) {
  const before = await fingerprint(t.database.db);
  const res = await send();
  expect(res.statusCode, res.body).toBe(status);
  expect(await fingerprint(t.database.db)).toBe(before);
  return res.json<Record<string, unknown>>();
}

describe('a repeated key is answered with the first answer and applied once', () => {
  it('POST /api/v1/notes', async () => {
    const key = newKey();
    const content = `Note ${key}`;
    const first = await post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    expect(first.statusCode).toBe(201);
    expect(replayed(first)).toBeUndefined();
    const again = await post(agent1, '/api/v1/notes', { call_id: callA.id, content }, key);
    expect(again.statusCode).toBe(201);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual(first.json());
    const rows = await notesWith(content);
    expect(rows).toHaveLength(1);
    expect(first.json()).toEqual({ success: true, note: { id: rows[0]!.id } });
  });

  it('POST /apps/webrtc/{id}/disposition', async () => {
    const key = newKey();
    const url = `/apps/webrtc/${callA.id}/disposition`;
    const first = await post(agent1, url, { status: 'voicemail' }, key);
    expect(first.json()).toEqual({ success: true });
    expect((await callRow(callA.id)).disposition).toBe('voicemail');
    // Another write changes it; the repeat must not apply 'voicemail' again.
    await t.database.db
      .update(calls)
      .set({ disposition: 'contacted' })
      .where(eq(calls.id, callA.id));
    const again = await post(agent1, url, { status: 'voicemail' }, key);
    expect(again.statusCode).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual({ success: true });
    expect((await callRow(callA.id)).disposition).toBe('contacted');
  });

  it('POST /apps/webrtc/{id}/disposition2', async () => {
    const key = newKey();
    const url = `/apps/webrtc/${callA.id}/disposition2`;
    const first = await post(agent1, url, { key: 'hot' }, key);
    expect(first.json()).toEqual({ success: true });
    expect((await callRow(callA.id)).stageKey).toBe('hot');
    await t.database.db.update(calls).set({ stageKey: 'follow-up' }).where(eq(calls.id, callA.id));
    const again = await post(agent1, url, { key: 'hot' }, key);
    expect(again.statusCode).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual({ success: true });
    expect((await callRow(callA.id)).stageKey).toBe('follow-up');
  });

  it('POST /apps/webrtc/{id}/sms', async () => {
    const key = newKey();
    const smsbody = `Text ${key}`;
    const url = `/apps/webrtc/${callA.id}/sms`;
    const first = await post(agent1, url, { smsbody }, key);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ success: true });
    expect(replayed(first)).toBeUndefined();
    const again = await post(agent1, url, { smsbody }, key);
    expect(again.statusCode).toBe(200);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual({ success: true });
    expect(await smsWith(smsbody)).toHaveLength(1);
  });

  it('two identical notes sent at once make one note', async () => {
    const key = newKey();
    const content = `Concurrent ${key}`;
    const answers = await Promise.all(
      [1, 2, 3].map(() => post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key)),
    );
    expect(answers.map((res) => res.statusCode)).toEqual([201, 201, 201]);
    expect(answers.filter((res) => replayed(res) === 'true')).toHaveLength(2);
    const bodies = answers.map((res) => res.json<unknown>());
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect(await notesWith(content)).toHaveLength(1);
  });
});

describe('refused keys change nothing', () => {
  it('the same key with another request is 422', async () => {
    const key = newKey();
    const content = `First ${key}`;
    await post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    expect(
      await refused(
        () => post(agent1, '/api/v1/notes', { content: `Second ${key}`, call_id: callA.id }, key),
        422,
      ),
    ).toEqual({ error: REUSED_KEY });
    // Another endpoint with the key is another request too.
    expect(
      await refused(
        () => post(agent1, `/apps/webrtc/${callA.id}/disposition`, { status: 'missed' }, key),
        422,
      ),
    ).toEqual({ error: REUSED_KEY });
    expect(
      await refused(() => post(agent1, `/apps/webrtc/${callA.id}/sms`, { smsbody: 'x' }, key), 422),
    ).toEqual({ error: REUSED_KEY });
    expect(await notesWith(`Second ${key}`)).toHaveLength(0);
  });

  const badKeys: Array<[what: string, key: string]> = [
    ['too short', 'abc1234'],
    ['with spaces', 'has spaces in it'],
    ['too long', 'k'.repeat(256)],
    ['empty', ''],
  ];
  for (const [what, key] of badKeys) {
    it(`a key ${what} is 400 on every endpoint`, async () => {
      const sends: Array<() => Promise<LightMyRequestResponse>> = [
        () => post(agent1, '/api/v1/notes', { content: `Bad ${what}`, call_id: callA.id }, key),
        () => post(agent1, `/apps/webrtc/${callA.id}/disposition`, { status: 'removed' }, key),
        () => post(agent1, `/apps/webrtc/${callA.id}/disposition2`, { key: 'quote-sent' }, key),
        () => post(agent1, `/apps/webrtc/${callA.id}/sms`, { smsbody: `Bad ${what}` }, key),
      ];
      for (const send of sends) expect(await refused(send, 400)).toEqual({ error: INVALID_KEY });
    });
  }

  it('keys of 8 and 255 visible characters are taken', async () => {
    for (const key of ['12345678', `~${'!'.repeat(253)}~`]) {
      const res = await post(
        agent2,
        '/api/v1/notes',
        { content: `Edge ${key.length}`, call_id: callA.id },
        key,
      );
      expect(res.statusCode, res.body).toBe(201);
    }
  });
});

describe('scope', () => {
  it('without a key every request is applied, and nothing is stored', async () => {
    const content = `Unkeyed ${randomUUID()}`;
    const keysBefore = await t.database.db.select().from(idempotencyKeys);
    const answers = [
      await post(agent1, '/api/v1/notes', { content, call_id: callA.id }),
      await post(agent1, '/api/v1/notes', { content, call_id: callA.id }),
    ];
    expect(answers.map((res) => res.statusCode)).toEqual([201, 201]);
    expect(answers.map(replayed)).toEqual([undefined, undefined]);
    expect(await notesWith(content)).toHaveLength(2);
    expect(await t.database.db.select().from(idempotencyKeys)).toEqual(keysBefore);
  });

  it("another user's key is another key", async () => {
    const key = newKey();
    const content = `Shared key ${key}`;
    const byAgent1 = await post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    const byAgent2 = await post(agent2, '/api/v1/notes', { content, call_id: callA.id }, key);
    const byAgentB = await post(agentB, '/api/v1/notes', { content, call_id: callB.id }, key);
    for (const res of [byAgent1, byAgent2, byAgentB]) {
      expect(res.statusCode).toBe(201);
      expect(replayed(res)).toBeUndefined();
    }
    const rows = await notesWith(content);
    expect(rows.map((row) => row.userId).sort()).toEqual(
      [agent1.userId, agent2.userId, agentB.userId].sort(),
    );
  });
});

describe('a failed request leaves its key free', () => {
  it("a note on another account's call (404), then on the user's own", async () => {
    const key = newKey();
    const content = `Retry ${key}`;
    expect(
      await refused(() => post(agent1, '/api/v1/notes', { content, call_id: callB.id }, key), 404),
    ).toEqual({ error: 'Call not found.' });
    const fixed = await post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    expect(fixed.statusCode).toBe(201);
    expect(replayed(fixed)).toBeUndefined();
    // The key now belongs to the request that worked.
    const again = await post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual(fixed.json());
    expect(await notesWith(content)).toHaveLength(1);
  });

  it('a blank note (422), then a written one', async () => {
    const key = newKey();
    await refused(
      () => post(agent1, '/api/v1/notes', { content: '  ', call_id: callA.id }, key),
      422,
    );
    const content = `Written ${key}`;
    const fixed = await post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    expect(fixed.statusCode).toBe(201);
    expect(await notesWith(content)).toHaveLength(1);
  });

  it('a tag the profile lacks (422), then one it has', async () => {
    const key = newKey();
    const url = `/apps/webrtc/${callA.id}/disposition2`;
    await refused(() => post(agent1, url, { key: 'no-such-tag' }, key), 422);
    const fixed = await post(agent1, url, { key: 'quote-sent' }, key);
    expect(fixed.json()).toEqual({ success: true });
    expect((await callRow(callA.id)).stageKey).toBe('quote-sent');
  });

  it("an SMS to another account's call (404) or too long (422), then a good one", async () => {
    const key = newKey();
    const smsbody = `Retry ${key}`;
    await refused(() => post(agent1, `/apps/webrtc/${callB.id}/sms`, { smsbody }, key), 404);
    await refused(
      () => post(agent1, `/apps/webrtc/${callA.id}/sms`, { smsbody: 'x'.repeat(1601) }, key),
      422,
    );
    const fixed = await post(agent1, `/apps/webrtc/${callA.id}/sms`, { smsbody }, key);
    expect(fixed.json()).toEqual({ success: true });
    expect(replayed(fixed)).toBeUndefined();
    const again = await post(agent1, `/apps/webrtc/${callA.id}/sms`, { smsbody }, key);
    expect(replayed(again)).toBe('true');
    expect(await smsWith(smsbody)).toHaveLength(1);
  });
});

describe('an SMS still being sent', () => {
  /** Starts an SMS whose send is held; resolves once the sender has it, with its answer. */
  async function heldSms(key: string, smsbody: string) {
    sender.hold();
    const before = sender.waiting;
    const answer = post(agent1, `/apps/webrtc/${callA.id}/sms`, { smsbody }, key);
    await waitUntil(() => (sender.waiting > before ? true : undefined), 'the SMS at the sender');
    return { answer };
  }

  it('is 409 for a repeat until it is sent, up to 60 s; then the repeat gets its answer', async () => {
    const key = newKey();
    const smsbody = `Held ${key}`;
    const first = await heldSms(key, smsbody);
    const url = `/apps/webrtc/${callA.id}/sms`;
    expect(await refused(() => post(agent1, url, { smsbody }, key), 409)).toEqual({
      success: false,
      error: IN_PROGRESS,
    });
    clock.advance(STALE_CLAIM_MS);
    await t.flows.idle();
    expect(await refused(() => post(agent1, url, { smsbody }, key), 409)).toEqual({
      success: false,
      error: IN_PROGRESS,
    });
    sender.release();
    expect((await first.answer).json()).toEqual({ success: true });
    const again = await post(agent1, url, { smsbody }, key);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual({ success: true });
    expect(await smsWith(smsbody)).toHaveLength(1);
  });

  it('is settled once as interrupted when its claim is older than 60 s', async () => {
    const key = newKey();
    const smsbody = `Abandoned ${key}`;
    const first = await heldSms(key, smsbody);
    clock.advance(STALE_CLAIM_MS + 1);
    await t.flows.idle();
    const url = `/apps/webrtc/${callA.id}/sms`;
    const repeats = await Promise.all([1, 2].map(() => post(agent1, url, { smsbody }, key)));
    for (const res of repeats) {
      expect(res.statusCode).toBe(200);
      expect(replayed(res)).toBe('true');
      expect(res.json()).toEqual({ success: false, error: INTERRUPTED });
    }
    expect(await storedKey(agent1.userId, key)).toMatchObject({
      statusCode: 200,
      response: { success: false, error: INTERRUPTED },
    });
    // The send finishes after all: its own request hears the truth, the key keeps its answer.
    sender.release();
    expect((await first.answer).json()).toEqual({ success: true });
    const later = await post(agent1, url, { smsbody }, key);
    expect(later.json()).toEqual({ success: false, error: INTERRUPTED });
    expect(await smsWith(smsbody)).toHaveLength(1);
  });
});

describe('expiry', () => {
  it('a key is answered again for 24 h and forgotten within the minute after', async () => {
    const key = newKey();
    const content = `Expiring ${key}`;
    const send = () => post(agent1, '/api/v1/notes', { content, call_id: callA.id }, key);
    expect((await send()).statusCode).toBe(201);

    clock.advance(IDEMPOTENCY_KEY_TTL_MS);
    await t.flows.idle();
    expect(replayed(await send())).toBe('true');
    // Past 24 h, but expired keys are swept at most once a minute.
    clock.advance(1);
    expect(replayed(await send())).toBe('true');
    expect(await notesWith(content)).toHaveLength(1);

    clock.advance(EXPIRY_SWEEP_MS);
    await t.flows.idle();
    const fresh = await send();
    expect(fresh.statusCode).toBe(201);
    expect(replayed(fresh)).toBeUndefined();
    expect(await notesWith(content)).toHaveLength(2);
    // Only the new use of the key is stored.
    expect((await storedKey(agent1.userId, key))!.createdAt).toEqual(clock.now());
  });
});
