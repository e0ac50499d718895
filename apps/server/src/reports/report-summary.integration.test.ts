/**
 * The Reports screen's summaries (issue 39) from a fixed call log, the expected figures worked
 * out by hand: an account in New York (UTC−5 in January), 5 and 6 January 2026, a call at 23:59
 * on the 5th. PGlite here; PostgreSQL in `npm test`'s PostgreSQL pass.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../db/database';
import { accounts, calls, profiles, tags, teams, users } from '../db/schema';
import { openTestDatabase } from '../test-support/test-database';
import { reportSummary } from './report-summary';

let database: Database;
let accountId: number;
const ids: Record<string, number> = {};
const utc = (iso: string) => new Date(iso);

beforeAll(async () => {
  database = await openTestDatabase();
  const { db } = database;
  const [account] = await db
    .insert(accounts)
    .values({ name: 'Reports', timeZone: 'America/New_York' })
    .returning();
  accountId = account!.id;
  const [team] = await db.insert(teams).values({ accountId, name: 'Closers' }).returning();
  const [solar] = await db
    .insert(profiles)
    .values({ accountId, name: 'Solar', teamId: team!.id })
    .returning();
  const [wind] = await db.insert(profiles).values({ accountId, name: 'Wind' }).returning();
  await db
    .insert(tags)
    .values({ profileId: solar!.id, key: 'quote', name: 'Quote sent', color: '#2e7d32' });
  for (const name of ['Ann', 'Bob']) {
    const [row] = await db
      .insert(users)
      .values({ accountId, email: `${name}@reports.example`, passwordHash: 'x', fullName: name })
      .returning();
    ids[name] = row!.id;
  }
  ids.Team = team!.id;
  ids.Solar = solar!.id;
  ids.Wind = wind!.id;
  let sid = 0;
  const call = (values: Partial<typeof calls.$inferInsert>) =>
    db.insert(calls).values({
      accountId,
      sid: `CA-r${++sid}`,
      source: 'web',
      status: 'completed',
      ...values,
    });
  // 5 Jan 10:00 New York: Ann answers in 10 s, 120 s of talk, 30 s of wrap-up.
  await call({
    profileId: solar!.id,
    userId: ids.Ann!,
    createdAt: utc('2026-01-05T15:00:00Z'),
    answeredAt: utc('2026-01-05T15:00:10Z'),
    endedAt: utc('2026-01-05T15:02:10Z'),
    seconds: 120,
    wrapUpEndedAt: utc('2026-01-05T15:02:40Z'),
    disposition: 'contacted',
    stageKey: 'quote',
  });
  // 5 Jan 23:59 New York (04:59 UTC on the 6th): Bob answers in 30 s, 60 s of talk, no wrap-up.
  await call({
    profileId: wind!.id,
    userId: ids.Bob!,
    createdAt: utc('2026-01-06T04:59:00Z'),
    answeredAt: utc('2026-01-06T04:59:30Z'),
    endedAt: utc('2026-01-06T05:00:30Z'),
    seconds: 60,
    disposition: 'contacted',
  });
  // 6 Jan 09:00: nobody answered; 09:30, inbound: the caller gave up.
  await call({
    profileId: solar!.id,
    status: 'missed',
    reason: 'no-agent-answered',
    createdAt: utc('2026-01-06T14:00:00Z'),
    endedAt: utc('2026-01-06T14:01:00Z'),
  });
  await call({
    profileId: solar!.id,
    source: 'inbound',
    status: 'missed',
    reason: 'caller-hung-up',
    createdAt: utc('2026-01-06T14:30:00Z'),
    endedAt: utc('2026-01-06T14:30:15Z'),
  });
  // 6 Jan 11:00: Ann's own outbound call, 300 s, a voicemail (not offered).
  await call({
    source: 'outbound',
    direction: 'outbound',
    userId: ids.Ann!,
    createdAt: utc('2026-01-06T16:00:00Z'),
    answeredAt: utc('2026-01-06T16:00:05Z'),
    endedAt: utc('2026-01-06T16:05:05Z'),
    seconds: 300,
    disposition: 'voicemail',
  });
  // Outside the range: 4 Jan 23:59 and 7 Jan 00:00:30 New York.
  await call({ createdAt: utc('2026-01-05T04:59:00Z'), disposition: 'contacted' });
  await call({ createdAt: utc('2026-01-07T05:00:30Z'), disposition: 'contacted' });
});

afterAll(async () => {
  await database?.close();
});

it('works out every summary of the range in the account’s zone', async () => {
  const summary = await reportSummary(
    database.db,
    accountId,
    { from: '2026-01-05', to: '2026-01-06' },
    utc('2026-01-10T00:00:00Z'),
  );
  expect(summary).toEqual({
    time_zone: 'America/New_York',
    from: '2026-01-05',
    to: '2026-01-06',
    service_level_seconds: 20,
    by_day: [
      {
        day: '2026-01-05',
        offered: 2,
        answered: 2,
        missed: 0,
        abandoned: 0,
        answer_rate: 1,
        average_speed_of_answer_seconds: 20, // (10 + 30) / 2
        average_handle_seconds: 105, // (120 + 30 + 60) / 2
        service_level: 0.5, // 10 s within 20, 30 s not
        talk_seconds: 180,
      },
      {
        day: '2026-01-06',
        offered: 2,
        answered: 0,
        missed: 1,
        abandoned: 1,
        answer_rate: 0,
        average_speed_of_answer_seconds: null,
        average_handle_seconds: null,
        service_level: 0,
        talk_seconds: 0,
      },
    ],
    by_team: [
      {
        id: ids.Team,
        name: 'Closers',
        offered: 3,
        answered: 1,
        missed: 1,
        abandoned: 1,
        answer_rate: 1 / 3,
        average_speed_of_answer_seconds: 10,
        average_handle_seconds: 150,
        service_level: 1 / 3,
        talk_seconds: 120,
      },
    ],
    by_profile: [
      {
        id: ids.Solar,
        name: 'Solar',
        offered: 3,
        answered: 1,
        missed: 1,
        abandoned: 1,
        answer_rate: 1 / 3,
        average_speed_of_answer_seconds: 10,
        average_handle_seconds: 150,
        service_level: 1 / 3,
        talk_seconds: 120,
      },
      {
        id: ids.Wind,
        name: 'Wind',
        offered: 1,
        answered: 1,
        missed: 0,
        abandoned: 0,
        answer_rate: 1,
        average_speed_of_answer_seconds: 30,
        average_handle_seconds: 60,
        service_level: 0,
        talk_seconds: 60,
      },
    ],
    by_agent: [
      // The 10:00 lead (150 s with its wrap-up) and the outbound call (300 s).
      {
        id: ids.Ann,
        name: 'Ann',
        calls: 2,
        answered: 2,
        talk_seconds: 420,
        average_handle_seconds: 225,
      },
      {
        id: ids.Bob,
        name: 'Bob',
        calls: 1,
        answered: 1,
        talk_seconds: 60,
        average_handle_seconds: 60,
      },
    ],
    by_disposition: [
      { disposition: 'contacted', calls: 2 },
      { disposition: 'voicemail', calls: 1 },
    ],
    by_tag: [{ tag: 'Quote sent', calls: 1 }],
  });
});

it('is null for an account that does not exist', async () => {
  const none = await reportSummary(
    database.db,
    999_999,
    { from: '2026-01-05', to: '2026-01-06' },
    new Date(),
  );
  expect(none).toBeNull();
});
