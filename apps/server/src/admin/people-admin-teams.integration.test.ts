/**
 * The admin API of teams (issue 37) on the endpoint fixture: listed with their member counts,
 * created, renamed and deleted (members leave it, profiles keep their rows without a team);
 * names unique in the account without regard to case (409), the name's sentences (422), 403 for
 * agents and supervisors, 404 for another account's team, the audit entry of each write and
 * none of a refusal.
 */
import { count, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAuditEntry, AdminTeam } from '@leadline/contracts';
import { hashPassword } from '../auth/password';
import { auditLog, profiles, teamMembers, teams, users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { fingerprint } from '../test-support/db-fingerprint';
import { ACCOUNT_B, startFixture, type Fixture } from '../test-support/fixture';
import { login, type Agent } from '../test-support/test-app';

let f: Fixture;
let admin: Agent;
let teamB: number;

beforeAll(async () => {
  f = await startFixture();
  const { db } = f.t.database;
  await db.insert(users).values({
    accountId: 1,
    email: 'tess.admin@example.com',
    passwordHash: await hashPassword(DEMO_PASSWORD),
    fullName: 'Tess Admin',
    role: 'admin',
  });
  admin = await login(f.t.app, 'tess.admin@example.com');
  const [b] = await db
    .insert(teams)
    .values({ accountId: ACCOUNT_B, name: 'Night shift' })
    .returning();
  teamB = b!.id;
}, 60_000);
afterAll(() => f.t.close());

const inject = (options: InjectOptions) => f.t.app.inject(options);
const auditCount = async () => (await f.t.database.db.select({ n: count() }).from(auditLog))[0]!.n;

/** A request that must be refused with `status` and change nothing, audit log included. */
async function refused(options: InjectOptions, status: number): Promise<{ error: string }> {
  const before = [await fingerprint(f.t.database.db), await auditCount()];
  const res = await inject(options);
  expect(res.statusCode, res.body).toBe(status);
  expect([await fingerprint(f.t.database.db), await auditCount()]).toEqual(before);
  return res.json();
}

const request = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  as: Agent = admin,
): InjectOptions => ({
  method,
  url,
  headers: f.auth(as),
  ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
});

async function latestAudit(): Promise<AdminAuditEntry> {
  const res = await inject(request('GET', '/api/v1/admin/audit'));
  return res.json<{ data: AdminAuditEntry[] }>().data[0]!;
}

async function create(name: string): Promise<AdminTeam> {
  const res = await inject(request('POST', '/api/v1/admin/teams', { name }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ data: AdminTeam }>().data;
}

describe('POST /api/v1/admin/teams', () => {
  it('creates a team (201 {data}) with no members, audited', async () => {
    const team = await create('  Closers ');
    expect(team).toMatchObject({ name: 'Closers', member_count: 0 });
    expect(team.id).toBeGreaterThan(0);
    expect(await latestAudit()).toMatchObject({
      actor: { id: admin.userId, full_name: 'Tess Admin' },
      action: 'team.create',
      target: `team:${team.id}`,
      changes: { name: [null, 'Closers'] },
    });
  });

  it('refuses a name another team of the account has, in any case (409); another account may have it', async () => {
    await create('Openers');
    expect(await refused(request('POST', '/api/v1/admin/teams', { name: 'OPENERS' }), 409)).toEqual(
      {
        error: 'A team with this name already exists.',
      },
    );
    // Account B has a 'Night shift'; account A may have one too.
    await create('night shift');
  });

  it.each([
    [{}, 'The name field is required.'],
    [{ name: '   ' }, 'The name field is required.'],
    [{ name: 'x'.repeat(101) }, 'The name may not be longer than 100 characters.'],
    [{ name: 7 }, 'The name field is required.'],
  ])('refuses %j with its sentence (422), nothing written', async (payload, sentence) => {
    expect(await refused(request('POST', '/api/v1/admin/teams', payload), 422)).toEqual({
      error: sentence,
    });
  });

  it('is refused for agents and supervisors (403), nothing written', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      expect(
        await refused(request('POST', '/api/v1/admin/teams', { name: 'Mine' }, who), 403),
      ).toEqual({ error: 'Only an administrator of this account can do this.' });
    }
  });
});

describe('GET /api/v1/admin/teams', () => {
  it("lists the account's teams by name with how many users each has; searches", async () => {
    const team = await create('Counted');
    await f.t.database.db.insert(teamMembers).values([
      { teamId: team.id, userId: f.agent1.userId },
      { teamId: team.id, userId: f.agent2.userId },
    ]);
    const res = await inject(request('GET', '/api/v1/admin/teams'));
    expect(res.statusCode).toBe(200);
    const body = res.json<{ data: AdminTeam[]; meta: { total: number; per_page: number } }>();
    const names = body.data.map((t) => t.name);
    const lower = names.map((name) => name.toLowerCase());
    expect(lower).toEqual([...lower].sort());
    expect(body.data.find((t) => t.id === team.id)).toMatchObject({ member_count: 2 });
    expect(body.data.map((t) => t.id)).not.toContain(teamB);
    expect(body.meta).toMatchObject({ per_page: 25, total: body.data.length });
    const found = await inject(request('GET', '/api/v1/admin/teams?search=COUNT'));
    expect(found.json<{ data: AdminTeam[] }>().data.map((t) => t.name)).toEqual(['Counted']);
  });

  it('is refused for agents and supervisors (403)', async () => {
    for (const who of [f.agent1, f.supervisor]) {
      const res = await inject(request('GET', '/api/v1/admin/teams', undefined, who));
      expect(res.statusCode).toBe(403);
    }
  });
});

describe('PATCH /api/v1/admin/teams/{id}', () => {
  it('renames (200 {data}), audited; its own name in another case is fine', async () => {
    const team = await create('Renamed soon');
    const res = await inject(
      request('PATCH', `/api/v1/admin/teams/${team.id}`, { name: 'Renamed now' }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: AdminTeam }>().data).toMatchObject({
      id: team.id,
      name: 'Renamed now',
    });
    expect(await latestAudit()).toMatchObject({
      action: 'team.update',
      target: `team:${team.id}`,
      changes: { name: ['Renamed soon', 'Renamed now'] },
    });
    const same = await inject(
      request('PATCH', `/api/v1/admin/teams/${team.id}`, { name: 'RENAMED NOW' }),
    );
    expect(same.statusCode).toBe(200);
  });

  it("refuses another team's name (409), another account's team (404), a bad name (422), agents (403)", async () => {
    const team = await create('Patch target');
    await create('Taken name');
    const url = `/api/v1/admin/teams/${team.id}`;
    expect(await refused(request('PATCH', url, { name: 'taken NAME' }), 409)).toEqual({
      error: 'A team with this name already exists.',
    });
    expect(
      await refused(request('PATCH', `/api/v1/admin/teams/${teamB}`, { name: 'Mine now' }), 404),
    ).toEqual({ error: 'Team not found.' });
    expect(await refused(request('PATCH', url, { name: '' }), 422)).toEqual({
      error: 'The name field is required.',
    });
    expect(await refused(request('PATCH', '/api/v1/admin/teams/abc', { name: 'X' }), 422)).toEqual({
      error: 'The id must be a number.',
    });
    for (const who of [f.agent1, f.supervisor]) {
      await refused(request('PATCH', url, { name: 'Agents rule' }, who), 403);
    }
  });
});

describe('DELETE /api/v1/admin/teams/{id}', () => {
  it('deletes (200 {data: {id}}): its members leave it, its profiles stay without a team, audited', async () => {
    const team = await create('Doomed');
    const { db } = f.t.database;
    await db.insert(teamMembers).values({ teamId: team.id, userId: f.agent1.userId });
    const [profile] = await db
      .insert(profiles)
      .values({ accountId: 1, name: 'Doomed team calls', teamId: team.id })
      .returning();
    const res = await inject(request('DELETE', `/api/v1/admin/teams/${team.id}`));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { id: team.id } });
    expect(await db.select().from(teams).where(eq(teams.id, team.id))).toEqual([]);
    expect(await db.select().from(teamMembers).where(eq(teamMembers.teamId, team.id))).toEqual([]);
    const [kept] = await db.select().from(profiles).where(eq(profiles.id, profile!.id));
    expect(kept).toMatchObject({ name: 'Doomed team calls', teamId: null });
    expect(await latestAudit()).toMatchObject({
      action: 'team.delete',
      target: `team:${team.id}`,
      changes: { name: ['Doomed', null], member_count: [1, null] },
    });
    // Gone: a second delete finds nothing.
    await refused(request('DELETE', `/api/v1/admin/teams/${team.id}`), 404);
  });

  it("refuses another account's team (404) and agents and supervisors (403)", async () => {
    expect(await refused(request('DELETE', `/api/v1/admin/teams/${teamB}`), 404)).toEqual({
      error: 'Team not found.',
    });
    const team = await create('Kept');
    for (const who of [f.agent1, f.supervisor]) {
      await refused(request('DELETE', `/api/v1/admin/teams/${team.id}`, undefined, who), 403);
    }
  });
});
