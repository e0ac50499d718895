/**
 * The catalog's admin API (issue 37): profiles and their tags, caller numbers and API keys, on
 * the populated test world (account A, the demo; account B, 6671). For every route: success,
 * its sentences, 403 for agents and supervisors, 409 duplicates, 404 across accounts, the audit
 * entry of each write (none for a refused one). Then what the changes do: a lead posted with a
 * new key rings with that key's profile and its tags in the order given, a deleted key is
 * refused at once, a profile's new hours apply to the next lead at once.
 */
import { createHash } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PAGE_SIZE } from '@leadline/contracts';
import { hashPassword } from '../auth/password';
import {
  apiKeys,
  auditLog,
  callUsers,
  callerNumbers,
  calls,
  leads,
  profiles,
  tags,
  teams,
  users,
} from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { fingerprint } from '../test-support/db-fingerprint';
import { ACCOUNT_B, startFixture, type Fixture } from '../test-support/fixture';
import { login, type Agent } from '../test-support/test-app';

let f: Fixture;
/** An admin of account A, one of account B, a supervisor of A. */
let admin: Agent;
let adminB: Agent;
let supervisor: Agent;

beforeAll(async () => {
  f = await startFixture();
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await f.t.database.db.insert(users).values([
    {
      accountId: 1,
      email: 'catalog.admin@example.com',
      passwordHash,
      fullName: 'Ada Admin',
      role: 'admin',
    },
    {
      accountId: ACCOUNT_B,
      email: 'admin@b.example.com',
      passwordHash,
      fullName: 'Bo Admin',
      role: 'admin',
    },
    {
      accountId: 1,
      email: 'boss@example.com',
      passwordHash,
      fullName: 'Sue Pervisor',
      role: 'supervisor',
      permissions: ['listen', 'whisper', 'barge'],
    },
  ]);
  [admin, adminB, supervisor] = await Promise.all([
    login(f.t.app, 'catalog.admin@example.com'),
    login(f.t.app, 'admin@b.example.com'),
    login(f.t.app, 'boss@example.com'),
  ]);
}, 60_000);
afterAll(() => f.t.close());

const db = () => f.t.database.db;

/** A request of `who` (CSRF on writes). */
function send(who: Agent, method: InjectOptions['method'], url: string, payload?: unknown) {
  return f.t.app.inject({
    method,
    url,
    headers: f.auth(who, method !== 'GET'),
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

const auditCount = async () => (await db().select({ n: count() }).from(auditLog))[0]!.n;

/** The newest audit entry. */
async function lastAudit() {
  const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row!;
}

/** Sends a write that must be refused with `status`, changing no row and writing no audit. */
async function refused(
  who: Agent,
  method: InjectOptions['method'],
  url: string,
  payload: unknown,
  status: number,
): Promise<string> {
  const before = [await fingerprint(db()), await auditCount()];
  const res = await send(who, method, url, payload);
  expect(res.statusCode, res.body).toBe(status);
  expect([await fingerprint(db()), await auditCount()]).toEqual(before);
  return res.json<{ error: string }>().error;
}

/** Creates a profile through the API; returns its resource. */
async function makeProfile(body: Record<string, unknown>) {
  const res = await send(admin, 'POST', '/api/v1/admin/profiles', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ data: { id: number; tags: Array<{ key: string }> } }>().data;
}

/** The ringing call user of `callId`, if any. */
async function ringingOf(callId: number) {
  const [row] = await db()
    .select()
    .from(callUsers)
    .where(and(eq(callUsers.callId, callId), eq(callUsers.outcome, 'ringing')));
  return row;
}

/** The logins of account A that may be rung, by user id. */
const ringable = () =>
  new Map([f.agent1, f.agent2, f.supervisor, f.basic].map((a) => [a.userId, a]));

/** Every agent rung for the call ignores it until it rings nobody (frees them for later tests). */
async function dismiss(callId: number): Promise<void> {
  for (let ring = await ringingOf(callId); ring; ring = await ringingOf(callId)) {
    const agent = ringable().get(ring.userId)!;
    const res = await send(agent, 'POST', `/apps/webrtc/${callId}/reject`);
    expect(res.statusCode, res.body).toBe(200);
  }
  await f.t.flows.idle();
}

/** Posts a lead with `key`. */
const postLead = (key: string, payload: unknown = { fname: 'Kay', phone_number: '+15550100777' }) =>
  f.t.app.inject({
    method: 'POST',
    url: '/api/v1/leads',
    headers: { authorization: `Bearer ${key}` },
    payload: payload as InjectOptions['payload'],
  });

const ROUTES: Array<[InjectOptions['method'], string, unknown?]> = [
  ['GET', '/api/v1/admin/profiles'],
  ['POST', '/api/v1/admin/profiles', { name: 'Nope' }],
  ['PATCH', '/api/v1/admin/profiles/1', { name: 'Nope' }],
  ['GET', '/api/v1/admin/caller-numbers'],
  ['GET', '/api/v1/admin/caller-numbers/available'],
  ['POST', '/api/v1/admin/caller-numbers', { name: 'Nope', phone_number: '+15550109999' }],
  ['PATCH', '/api/v1/admin/caller-numbers/1', { name: 'Nope' }],
  ['DELETE', '/api/v1/admin/caller-numbers/1'],
  ['GET', '/api/v1/admin/api-keys'],
  ['POST', '/api/v1/admin/api-keys', { name: 'Nope' }],
  ['DELETE', '/api/v1/admin/api-keys/1'],
];

describe('who may', () => {
  it.each(ROUTES)(
    '%s %s: 403 for an agent and a supervisor, 401 without a session',
    async (method, url, body) => {
      for (const who of [f.agent1, supervisor]) {
        const before = [await fingerprint(db()), await auditCount()];
        const res = await send(who, method, url, body);
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json()).toEqual({ error: 'Only an administrator of this account can do this.' });
        expect([await fingerprint(db()), await auditCount()]).toEqual(before);
      }
      const anonymous = await f.t.app.inject({
        method,
        url,
        ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      });
      expect(anonymous.statusCode).toBe(401);
    },
  );

  it.each(ROUTES.filter(([method]) => method !== 'GET'))(
    '%s %s: 403 without the CSRF token, even for an admin',
    async (method, url, body) => {
      const res = await f.t.app.inject({
        method,
        url,
        headers: f.auth(admin, false),
        ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      });
      expect(res.statusCode).toBe(403);
      expect(res.json<{ error: string }>().error).toMatch(/CSRF token mismatch/);
    },
  );
});

describe('profiles', () => {
  it('creates a profile with its tags in the order given, its hours and ring timeout; audits it', async () => {
    const [sales] = await db()
      .select()
      .from(teams)
      .where(and(eq(teams.accountId, 1), eq(teams.name, 'Sales')));
    const body = {
      name: 'Roofing leads',
      is_deal_whispertext: true,
      auto_answer: false,
      ring_timeout_seconds: 45,
      team_id: sales!.id,
      hours: {
        time_zone: 'Europe/London',
        days: {
          '1': [
            ['09:00', '12:30'],
            ['13:30', '17:00'],
          ],
          '5': [['09:00', '24:00']],
        },
      },
      tags: [
        { key: 'new', name: 'New', color: '#1A73E8' },
        { key: 'won', name: 'Won', color: '#0b8043' },
        { key: 'lost', name: 'Lost', color: '#000' },
      ],
    };
    const res = await send(admin, 'POST', '/api/v1/admin/profiles', body);
    expect(res.statusCode, res.body).toBe(201);
    const { data } = res.json<{ data: { id: number; created_at: string } }>();
    expect(data).toEqual({
      id: expect.any(Number) as number,
      name: 'Roofing leads',
      is_deal_whispertext: true,
      auto_answer: false,
      ring_timeout_seconds: 45,
      team_id: sales!.id,
      hours: body.hours,
      // Colours as stored: lower case.
      tags: [
        { key: 'new', name: 'New', color: '#1a73e8' },
        { key: 'won', name: 'Won', color: '#0b8043' },
        { key: 'lost', name: 'Lost', color: '#000' },
      ],
      created_at: expect.any(String) as string,
    });
    // Stored as the routing reads it.
    const [row] = await db().select().from(profiles).where(eq(profiles.id, data.id));
    expect(row).toMatchObject({
      accountId: 1,
      ringTimeoutMs: 45_000,
      availability: {
        timeZone: 'Europe/London',
        days: {
          1: [
            ['09:00', '12:30'],
            ['13:30', '17:00'],
          ],
          5: [['09:00', '24:00']],
        },
      },
    });
    const audit = await lastAudit();
    expect(audit).toMatchObject({
      accountId: 1,
      actorUserId: admin.userId,
      action: 'profile.create',
      target: `profile:${data.id}`,
    });
    expect(audit.changes).toMatchObject({
      name: [null, 'Roofing leads'],
      ring_timeout_seconds: [null, 45],
    });

    // The list has it with its tags in order; another account's list does not.
    const list = await send(admin, 'GET', '/api/v1/admin/profiles?search=roofing');
    expect(list.json()).toEqual({
      data: [res.json<{ data: unknown }>().data],
      meta: { current_page: 1, last_page: 1, per_page: ADMIN_PAGE_SIZE, total: 1 },
    });
    const listB = await send(adminB, 'GET', '/api/v1/admin/profiles?search=roofing');
    expect(listB.json<{ data: unknown[] }>().data).toEqual([]);
  });

  it('pages the list by name', async () => {
    for (let i = 0; i < ADMIN_PAGE_SIZE; i++) {
      await makeProfile({ name: `Paged ${String(i).padStart(2, '0')}` });
    }
    const first = await send(admin, 'GET', '/api/v1/admin/profiles?search=paged');
    const second = await send(admin, 'GET', '/api/v1/admin/profiles?search=paged&page=2');
    expect(first.json<{ meta: unknown }>().meta).toEqual({
      current_page: 1,
      last_page: 1,
      per_page: ADMIN_PAGE_SIZE,
      total: ADMIN_PAGE_SIZE,
    });
    await makeProfile({ name: 'Paged 99' });
    const again = await send(admin, 'GET', '/api/v1/admin/profiles?search=paged&page=2');
    expect(again.json()).toMatchObject({
      data: [{ name: 'Paged 99' }],
      meta: { current_page: 2, last_page: 2, total: ADMIN_PAGE_SIZE + 1 },
    });
    expect(second.json<{ data: unknown[] }>().data).toEqual([]);
    expect(first.json<{ data: Array<{ name: string }> }>().data[0]!.name).toBe('Paged 00');
    expect(
      (await send(admin, 'GET', '/api/v1/admin/profiles?page=0')).json<{ error: string }>(),
    ).toEqual({ error: 'The page must be at least 1.' });
  });

  // WCAG AA's 4.5:1 for the tag's text, the console's rule.
  const CONTRAST =
    'The tag colour is too close to mid-grey: neither dark nor light text on it reaches a contrast of 4.5:1. Pick a darker or lighter colour.';
  it.each([
    [
      'a tag colour failing contrast',
      { tags: [{ key: 'grey', name: 'Grey', color: '#777777' }] },
      CONTRAST,
    ],
    [
      'a tag colour not hex',
      { tags: [{ key: 'red', name: 'Red', color: 'red' }] },
      'The tag colour must be a hex colour such as #1a73e8.',
    ],
    [
      'a tag key twice',
      {
        tags: [
          { key: 'a', name: 'A', color: '#000000' },
          { key: 'a', name: 'B', color: '#ffffff' },
        ],
      },
      'The tags field: Each tag key may appear once in a profile.',
    ],
    [
      'a tag key with capitals',
      { tags: [{ key: 'Hot', name: 'Hot', color: '#000000' }] },
      'The tag key may hold only lower-case letters, digits, - and _.',
    ],
    [
      'a ring timeout too short',
      { ring_timeout_seconds: 4 },
      'The ring timeout must be at least 5 seconds.',
    ],
    [
      'a ring timeout too long',
      { ring_timeout_seconds: 121 },
      'The ring timeout may be at most 120 seconds.',
    ],
    [
      'hours out of order',
      { hours: { time_zone: 'UTC', days: { '1': [['17:00', '09:00']] } } },
      'The hours.days.1.0 field: Each opening interval must be two HH:MM times, the first before the second.',
    ],
    [
      'hours in another format',
      { hours: { time_zone: 'UTC', days: { '1': [['9am', '5pm']] } } },
      'The hours.days.1.0 field: Each opening interval must be two HH:MM times, the first before the second.',
    ],
    [
      'an unknown time zone',
      { hours: { time_zone: 'Mars/Olympus', days: {} } },
      'The time zone must be an IANA time zone, such as America/New_York.',
    ],
    ['no name', { name: '  ' }, 'The name field is required.'],
  ])(
    'refuses %s with its sentence (422), on create and on update',
    async (_case, fields, sentence) => {
      expect(
        await refused(admin, 'POST', '/api/v1/admin/profiles', { name: 'Refused', ...fields }, 422),
      ).toBe(sentence);
      const [solar] = await db().select().from(profiles).where(eq(profiles.name, 'Solar leads'));
      expect(
        await refused(admin, 'PATCH', `/api/v1/admin/profiles/${solar!.id}`, fields, 422),
      ).toBe(sentence);
    },
  );

  it('refuses a name the account has in another case (409), and a team of another account (422)', async () => {
    expect(
      await refused(admin, 'POST', '/api/v1/admin/profiles', { name: 'solar LEADS' }, 409),
    ).toBe('A profile with this name already exists.');
    const other = await makeProfile({ name: 'Renamed later' });
    expect(
      await refused(
        admin,
        'PATCH',
        `/api/v1/admin/profiles/${other.id}`,
        { name: 'SOLAR leads' },
        409,
      ),
    ).toBe('A profile with this name already exists.');
    // Account B may have a profile of that name.
    const inB = await send(adminB, 'POST', '/api/v1/admin/profiles', { name: 'Solar leads' });
    expect(inB.statusCode, inB.body).toBe(201);
    const [teamB] = await db().select().from(teams).where(eq(teams.accountId, ACCOUNT_B));
    expect(
      await refused(
        admin,
        'POST',
        '/api/v1/admin/profiles',
        { name: 'With B team', team_id: teamB!.id },
        422,
      ),
    ).toBe('The team does not exist.');
  });

  it("answers 404 for another account's profile", async () => {
    const [profileB] = await db().select().from(profiles).where(eq(profiles.accountId, ACCOUNT_B));
    expect(
      await refused(
        admin,
        'PATCH',
        `/api/v1/admin/profiles/${profileB!.id}`,
        { name: 'Mine' },
        404,
      ),
    ).toBe('Not found.');
    expect(
      await refused(admin, 'PATCH', '/api/v1/admin/profiles/999999', { name: 'Mine' }, 404),
    ).toBe('Not found.');
    expect(await refused(admin, 'PATCH', '/api/v1/admin/profiles/abc', { name: 'Mine' }, 422)).toBe(
      'The id must be a number.',
    );
  });

  it('replaces the tags in the order given: kept keys keep their row, new ones are added, missing ones removed; audited', async () => {
    const made = await makeProfile({
      name: 'Reordered',
      tags: [
        { key: 'one', name: 'One', color: '#000000' },
        { key: 'two', name: 'Two', color: '#ffffff' },
        { key: 'three', name: 'Three', color: '#1a73e8' },
      ],
    });
    const idsBefore = new Map(
      (await db().select().from(tags).where(eq(tags.profileId, made.id))).map((t) => [t.key, t.id]),
    );
    const next = [
      { key: 'three', name: 'Third', color: '#1a73e8' },
      { key: 'four', name: 'Four', color: '#0b8043' },
      { key: 'one', name: 'One', color: '#000000' },
    ];
    const res = await send(admin, 'PATCH', `/api/v1/admin/profiles/${made.id}`, { tags: next });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: { tags: unknown } }>().data.tags).toEqual(next);
    const rows = await db()
      .select()
      .from(tags)
      .where(eq(tags.profileId, made.id))
      .orderBy(tags.position);
    expect(rows.map((t) => [t.key, t.position])).toEqual([
      ['three', 0],
      ['four', 1],
      ['one', 2],
    ]);
    expect(rows.find((t) => t.key === 'three')!.id).toBe(idsBefore.get('three'));
    expect(rows.find((t) => t.key === 'one')!.id).toBe(idsBefore.get('one'));
    const audit = await lastAudit();
    expect(audit).toMatchObject({
      action: 'profile.update',
      target: `profile:${made.id}`,
      actorUserId: admin.userId,
    });
    expect(Object.keys(audit.changes)).toEqual(['tags']);
    expect(audit.changes.tags).toEqual([
      [
        { key: 'one', name: 'One', color: '#000000' },
        { key: 'two', name: 'Two', color: '#ffffff' },
        { key: 'three', name: 'Three', color: '#1a73e8' },
      ],
      next,
    ]);
    // The list shows them in that order.
    const list = await send(admin, 'GET', '/api/v1/admin/profiles?search=reordered');
    expect(list.json<{ data: Array<{ tags: unknown }> }>().data[0]!.tags).toEqual(next);
    // A PATCH that changes nothing writes no entry.
    const count = await auditCount();
    expect(
      (await send(admin, 'PATCH', `/api/v1/admin/profiles/${made.id}`, { tags: next })).statusCode,
    ).toBe(200);
    expect(await auditCount()).toBe(count);
  });

  it('clears the ring timeout, team and hours with null', async () => {
    const made = await makeProfile({
      name: 'Cleared',
      ring_timeout_seconds: 20,
      hours: { time_zone: 'UTC', days: { '0': [['08:00', '09:00']] } },
    });
    const res = await send(admin, 'PATCH', `/api/v1/admin/profiles/${made.id}`, {
      ring_timeout_seconds: null,
      hours: null,
      team_id: null,
    });
    expect(res.json()).toMatchObject({
      data: { ring_timeout_seconds: null, hours: null, team_id: null },
    });
    const [row] = await db().select().from(profiles).where(eq(profiles.id, made.id));
    expect(row).toMatchObject({ ringTimeoutMs: null, availability: null, teamId: null });
  });
});

describe('caller numbers', () => {
  it('adds, lists, renames and removes a number; each write audited', async () => {
    const solar = await makeProfile({ name: 'Numbers profile' });
    const res = await send(admin, 'POST', '/api/v1/admin/caller-numbers', {
      name: 'Spring line',
      phone_number: '(555) 014-2077',
      profile_id: solar.id,
    });
    expect(res.statusCode, res.body).toBe(201);
    const { data } = res.json<{ data: { id: number } }>();
    expect(data).toEqual({
      id: expect.any(Number) as number,
      name: 'Spring line',
      phone_number: '+15550142077',
      phone_number_formatted: '+1 555 014 2077',
      profile_id: solar.id,
      created_at: expect.any(String) as string,
    });
    expect(await lastAudit()).toMatchObject({
      action: 'caller_number.create',
      target: `caller_number:${data.id}`,
      actorUserId: admin.userId,
      changes: {
        name: [null, 'Spring line'],
        phone_number: [null, '+15550142077'],
        profile_id: [null, solar.id],
      },
    });
    const list = await send(admin, 'GET', '/api/v1/admin/caller-numbers?search=0142077');
    expect(list.json()).toMatchObject({ data: [{ id: data.id }], meta: { total: 1 } });
    // The seeded two and this one; none of account B's.
    const all = await send(admin, 'GET', '/api/v1/admin/caller-numbers');
    expect(
      all
        .json<{ data: Array<{ phone_number: string }> }>()
        .data.map((n) => n.phone_number)
        .sort(),
    ).toEqual(['+15550142000', '+15550142010', '+15550142077']);

    const renamed = await send(admin, 'PATCH', `/api/v1/admin/caller-numbers/${data.id}`, {
      name: 'Summer line',
      profile_id: null,
    });
    expect(renamed.json()).toMatchObject({ data: { name: 'Summer line', profile_id: null } });
    expect(await lastAudit()).toMatchObject({
      action: 'caller_number.update',
      changes: { name: ['Spring line', 'Summer line'], profile_id: [solar.id, null] },
    });

    const removed = await send(admin, 'DELETE', `/api/v1/admin/caller-numbers/${data.id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ data: { id: data.id } });
    expect(await db().select().from(callerNumbers).where(eq(callerNumbers.id, data.id))).toEqual(
      [],
    );
    expect(await lastAudit()).toMatchObject({
      action: 'caller_number.delete',
      target: `caller_number:${data.id}`,
      changes: { phone_number: ['+15550142077', null] },
    });
  });

  it('refuses a bad number (422), a number already a caller number of any account (409), a profile of another account (422)', async () => {
    expect(
      await refused(
        admin,
        'POST',
        '/api/v1/admin/caller-numbers',
        { name: 'Bad', phone_number: '12' },
        422,
      ),
    ).toBe('The phone number is not a valid phone number.');
    expect(
      await refused(admin, 'POST', '/api/v1/admin/caller-numbers', { name: 'No number' }, 422),
    ).toBe('The phone number field is required.');
    for (const taken of ['+15550142000', '+15550156671']) {
      expect(
        await refused(
          admin,
          'POST',
          '/api/v1/admin/caller-numbers',
          { name: 'Taken', phone_number: taken },
          409,
        ),
      ).toBe('This number is already a caller number.');
    }
    const [mine] = await db()
      .select()
      .from(callerNumbers)
      .where(eq(callerNumbers.phoneNumber, '+15550142010'));
    expect(
      await refused(
        admin,
        'PATCH',
        `/api/v1/admin/caller-numbers/${mine!.id}`,
        { phone_number: '+15550142000' },
        409,
      ),
    ).toBe('This number is already a caller number.');
    const [profileB] = await db().select().from(profiles).where(eq(profiles.accountId, ACCOUNT_B));
    expect(
      await refused(
        admin,
        'POST',
        '/api/v1/admin/caller-numbers',
        { name: 'B profile', phone_number: '+15550142088', profile_id: profileB!.id },
        422,
      ),
    ).toBe('The profile does not exist.');
  });

  it("answers 404 for another account's number", async () => {
    const [numberB] = await db()
      .select()
      .from(callerNumbers)
      .where(eq(callerNumbers.accountId, ACCOUNT_B));
    expect(
      await refused(
        admin,
        'PATCH',
        `/api/v1/admin/caller-numbers/${numberB!.id}`,
        { name: 'Mine' },
        404,
      ),
    ).toBe('Not found.');
    expect(
      await refused(admin, 'DELETE', `/api/v1/admin/caller-numbers/${numberB!.id}`, undefined, 404),
    ).toBe('Not found.');
  });

  it('keeps a number that past calls used (409): their history names it', async () => {
    const { call } = await f.liveCall(f.agent1);
    await f.endCall(call);
    expect(call.callerNumberId).not.toBeNull();
    expect(
      await refused(
        admin,
        'DELETE',
        `/api/v1/admin/caller-numbers/${call.callerNumberId}`,
        undefined,
        409,
      ),
    ).toBe(
      'This number was used by past calls and stays in their history: rename it or move it to another profile instead.',
    );
  });

  it('lists no provider numbers in embedded mode: any number may be added', async () => {
    const res = await send(admin, 'GET', '/api/v1/admin/caller-numbers/available');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [], provider_checked: false });
  });
});

describe('API keys', () => {
  let keyProfile: { id: number };
  let made: { id: number; key: string; prefix: string; created_at: string };

  it('makes a key shown once (only its hash kept), with its profile; audits it with the key redacted', async () => {
    keyProfile = await makeProfile({
      name: 'Web form leads',
      tags: [
        { key: 'callback', name: 'Call back', color: '#1a73e8' },
        { key: 'booked', name: 'Booked', color: '#0b8043' },
      ],
    });
    const res = await send(admin, 'POST', '/api/v1/admin/api-keys', {
      name: 'Web form',
      profile_id: keyProfile.id,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    made = res.json<{ data: typeof made }>().data;
    expect(made).toEqual({
      id: expect.any(Number) as number,
      name: 'Web form',
      profile_id: keyProfile.id,
      prefix: made.key.slice(0, 8),
      created_at: expect.any(String) as string,
      key: expect.stringMatching(/^ll_[A-Za-z0-9_-]{43}$/) as string,
    });
    // Only the hash is stored; nothing else holds the key.
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, made.id));
    expect(row!.keyHash).toBe(createHash('sha256').update(made.key).digest('hex'));
    expect(JSON.stringify(await db().select().from(apiKeys))).not.toContain(made.key);
    const audit = await lastAudit();
    expect(audit).toMatchObject({
      action: 'api_key.create',
      target: `api_key:${made.id}`,
      actorUserId: admin.userId,
      changes: {
        name: [null, 'Web form'],
        profile_id: [null, keyProfile.id],
        key: [null, '[redacted]'],
      },
    });
    expect(JSON.stringify(await db().select().from(auditLog))).not.toContain(made.key);
    // The list never carries it.
    const list = await send(admin, 'GET', '/api/v1/admin/api-keys?search=web');
    expect(list.json()).toEqual({
      data: [
        {
          id: made.id,
          name: 'Web form',
          profile_id: keyProfile.id,
          prefix: made.prefix,
          created_at: made.created_at,
        },
      ],
      meta: { current_page: 1, last_page: 1, per_page: ADMIN_PAGE_SIZE, total: 1 },
    });
    expect(list.body).not.toContain(made.key);
    // Another key is another key.
    const second = await send(admin, 'POST', '/api/v1/admin/api-keys', { name: 'CRM' });
    expect(second.json<{ data: { key: string; profile_id: null } }>().data).toMatchObject({
      profile_id: null,
    });
    expect(second.json<{ data: { key: string } }>().data.key).not.toBe(made.key);
  });

  it("rings a lead posted with the key with the key's profile and its tags in order", async () => {
    const res = await postLead(made.key, { fname: 'Kay', phone_number: '+15550100781' });
    expect(res.statusCode, res.body).toBe(201);
    const answer = res.json<{
      lead: { id: number };
      call: { id: number; status: string; agent_id: number };
    }>();
    expect(answer.call.status).toBe('ringing');
    const [lead] = await db().select().from(leads).where(eq(leads.id, answer.lead.id));
    const [call] = await db().select().from(calls).where(eq(calls.id, answer.call.id));
    expect([lead!.profileId, call!.profileId]).toEqual([keyProfile.id, keyProfile.id]);
    // The rung agent's console loads the call with that profile's tags, in the order given.
    const ring = (await ringingOf(answer.call.id))!;
    const agent = ringable().get(ring.userId)!;
    const loaded = await send(agent, 'GET', `/api/v1/callusers/${ring.id}`);
    expect(loaded.json()).toMatchObject({
      call: {
        profile: {
          id: keyProfile.id,
          tags: [
            { key: 'callback', name: 'Call back', color: '#1a73e8' },
            { key: 'booked', name: 'Booked', color: '#0b8043' },
          ],
        },
      },
    });

    // Reordered and renamed by the admin: the next call shows the new order and name at once.
    await dismiss(answer.call.id);
    const patched = await send(admin, 'PATCH', `/api/v1/admin/profiles/${keyProfile.id}`, {
      tags: [
        { key: 'booked', name: 'Booked in', color: '#0b8043' },
        { key: 'callback', name: 'Call back', color: '#1a73e8' },
      ],
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const next = await postLead(made.key, { fname: 'Kay', phone_number: '+15550100782' });
    const nextCall = next.json<{ call: { id: number } }>().call;
    const nextRing = (await ringingOf(nextCall.id))!;
    const nextLoaded = await send(
      ringable().get(nextRing.userId)!,
      'GET',
      `/api/v1/callusers/${nextRing.id}`,
    );
    expect(
      nextLoaded
        .json<{ call: { profile: { tags: Array<{ key: string; name: string }> } } }>()
        .call.profile.tags.map((t) => [t.key, t.name]),
    ).toEqual([
      ['booked', 'Booked in'],
      ['callback', 'Call back'],
    ]);
    await dismiss(nextCall.id);
  });

  it("applies a profile's new hours to the next lead at once (no restart, no cache wait)", async () => {
    // The profile was just read for a lead (the routing settings are remembered).
    const open = await postLead(made.key, { fname: 'Open', phone_number: '+15550100783' });
    expect(open.json<{ call: { status: string } }>().call.status).toBe('ringing');
    await dismiss(open.json<{ call: { id: number } }>().call.id);
    const closed = await send(admin, 'PATCH', `/api/v1/admin/profiles/${keyProfile.id}`, {
      hours: { time_zone: 'UTC', days: {} },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    const after = await postLead(made.key, { fname: 'Closed', phone_number: '+15550100784' });
    expect(after.json<{ call: { reason: string | null } }>().call.reason).toBe('outside-hours');
    await send(admin, 'PATCH', `/api/v1/admin/profiles/${keyProfile.id}`, { hours: null });
  });

  it('refuses a deleted key at once (401); the deletion is audited', async () => {
    // The key was used just now: the auth plugin remembers it.
    expect((await postLead(made.key, {})).statusCode).toBe(422);
    const res = await send(admin, 'DELETE', `/api/v1/admin/api-keys/${made.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { id: made.id } });
    const refusedLead = await postLead(made.key);
    expect(refusedLead.statusCode).toBe(401);
    expect(await lastAudit()).toMatchObject({
      action: 'api_key.delete',
      target: `api_key:${made.id}`,
      actorUserId: admin.userId,
      changes: { name: ['Web form', null] },
    });
    expect(
      await refused(admin, 'DELETE', `/api/v1/admin/api-keys/${made.id}`, undefined, 404),
    ).toBe('Not found.');
  });

  it("refuses a name missing (422), a profile of another account (422); another account's key is 404", async () => {
    expect(await refused(admin, 'POST', '/api/v1/admin/api-keys', {}, 422)).toBe(
      'The name field is required.',
    );
    const [profileB] = await db().select().from(profiles).where(eq(profiles.accountId, ACCOUNT_B));
    expect(
      await refused(
        admin,
        'POST',
        '/api/v1/admin/api-keys',
        { name: 'B', profile_id: profileB!.id },
        422,
      ),
    ).toBe('The profile does not exist.');
    const keyB = await send(adminB, 'POST', '/api/v1/admin/api-keys', { name: 'B key' });
    expect(keyB.statusCode).toBe(201);
    const { id } = keyB.json<{ data: { id: number } }>().data;
    expect(await refused(admin, 'DELETE', `/api/v1/admin/api-keys/${id}`, undefined, 404)).toBe(
      'Not found.',
    );
    // B's list does not show A's keys.
    const listB = await send(adminB, 'GET', '/api/v1/admin/api-keys');
    expect(listB.json<{ data: Array<{ name: string }> }>().data.map((k) => k.name)).toEqual([
      'B key',
    ]);
  });
});
