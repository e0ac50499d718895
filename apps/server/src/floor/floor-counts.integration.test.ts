/**
 * The floor's kept counts (`floor-counts.ts`) against the figures counted over the calls
 * themselves (`figureColumns`, what the reports use): a day of calls of every kind and fate is
 * written, changed as calls change (answered, ended, wrapped up, Done early, moved, removed),
 * folded part-way, its threshold changed; after each step both ways must give the same figures
 * per interval and for the day, as of moments before, during and after the wrap-ups. PGlite
 * here; PostgreSQL in `npm test`'s PostgreSQL pass.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../db/database';
import { accounts, calls } from '../db/schema';
import { openTestDatabase } from '../test-support/test-database';
import { figureColumns, figuresOf, OFFERED_CALL, type CallFigures } from './call-figures';
import { countedFigures, foldFloorCounts } from './floor-counts';

const DAY_START = new Date('2026-05-04T04:00:00Z');
const DAY_END = new Date('2026-05-05T04:00:00Z');
const minute = (n: number): Date => new Date(DAY_START.getTime() + n * 60_000);
const seconds = (from: Date, n: number): Date => new Date(from.getTime() + n * 1000);

let database: Database;
let accountId: number;
let otherAccountId: number;

/** A small deterministic generator (the same log on every run and database). */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

/** The figures counted over the calls, per interval and for the day. */
async function countedOverCalls(at: Date) {
  const [account] = await database.db
    .select({ threshold: accounts.serviceLevelSeconds })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  const rows = await queryRows<Record<string, unknown>>(
    database.db,
    sql`select grouping(bucket) as whole, bucket, ${figureColumns(account!.threshold, at.toISOString())}
        from (select c.*, date_bin('15 minutes', c.created_at, ${DAY_START.toISOString()}::timestamptz) as bucket
          from calls c where c.account_id = ${accountId}
            and c.created_at >= ${DAY_START.toISOString()}::timestamptz
            and c.created_at < ${DAY_END.toISOString()}::timestamptz and ${OFFERED_CALL}) c
        group by grouping sets ((), (bucket))`,
  );
  const byBucket = new Map<number, CallFigures>();
  let whole: CallFigures | null = null;
  for (const row of rows) {
    if (Number(row.whole) === 1) whole = figuresOf(row);
    else byBucket.set(new Date(row.bucket as string).getTime(), figuresOf(row));
  }
  return { whole: whole!, byBucket, threshold: account!.threshold };
}

function expectSameFigures(kept: CallFigures, counted: CallFigures, where: string): void {
  for (const key of Object.keys(counted) as Array<keyof CallFigures>) {
    const want = counted[key];
    const got = kept[key];
    if (want === null || got === null) expect(got, `${where} ${key}`).toBe(want);
    else expect(got, `${where} ${key}`).toBeCloseTo(want, 6);
  }
}

/** Both ways agree as of each of `moments`. */
async function expectAgreement(moments: Date[]): Promise<void> {
  for (const at of moments) {
    const counted = await countedOverCalls(at);
    const kept = await countedFigures(database.db, accountId, {
      start: DAY_START,
      end: DAY_END,
      at,
      thresholdSeconds: counted.threshold,
    });
    const where = `as of ${at.toISOString()}`;
    expectSameFigures(kept.whole, counted.whole, `${where}, the day:`);
    expect([...kept.byBucket.keys()].sort()).toEqual([...counted.byBucket.keys()].sort());
    for (const [bucket, figures] of counted.byBucket)
      expectSameFigures(
        kept.byBucket.get(bucket)!,
        figures,
        `${where}, ${new Date(bucket).toISOString()}:`,
      );
  }
}

const MOMENTS = [minute(600), minute(900), minute(1000), minute(1439)];
const callIds: number[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  [{ id: accountId }] = (await database.db
    .insert(accounts)
    .values({ name: 'Counted', timeZone: 'America/New_York' })
    .returning({ id: accounts.id })) as [{ id: number }];
  [{ id: otherAccountId }] = (await database.db
    .insert(accounts)
    .values({ name: 'Elsewhere' })
    .returning({ id: accounts.id })) as [{ id: number }];
});

afterAll(async () => {
  await database?.close();
});

describe('the floor counts kept as calls change', () => {
  it('agree with the calls counted, through a day of calls of every kind and fate', async () => {
    const next = generator(7);
    const sources = ['web', 'inbound', 'outbound', 'retry', 'check'] as const;
    const values: Array<typeof calls.$inferInsert> = [];
    for (let i = 0; i < 240; i++) {
      // Mostly the day; some the evening before and the morning after.
      const created = minute(next(1440 + 120) - 60);
      const fate = next(7);
      const answered = fate <= 2 ? seconds(created, next(45)) : null;
      const ended =
        fate === 0 || fate === 1
          ? seconds(answered!, 30 + next(400))
          : fate >= 4
            ? seconds(created, 5 + next(90))
            : null;
      values.push({
        accountId: i % 17 === 0 ? otherAccountId : accountId,
        sid: `CAcount${i}`,
        source: sources[next(10) < 8 ? next(2) : 2 + next(3)],
        status: ended ? 'completed' : answered ? 'in-progress' : 'queued',
        createdAt: created,
        answeredAt: answered,
        endedAt: ended,
        reason: ended && !answered ? (fate === 4 ? 'caller-hung-up' : 'no-agent-answered') : null,
        seconds: answered && ended ? Math.round((ended.getTime() - answered.getTime()) / 1000) : 0,
        wrapUpEndedAt: fate === 0 ? seconds(ended!, next(120)) : null,
      });
    }
    for (const value of values.slice(0, 120)) {
      const [row] = await database.db.insert(calls).values(value).returning({ id: calls.id });
      callIds.push(row!.id);
    }
    await expectAgreement(MOMENTS);
    // Folded part-way: the counts hold the first half, the deltas the rest.
    expect(await foldFloorCounts(database.db)).toBeGreaterThan(0);
    const rest = await database.db
      .insert(calls)
      .values(values.slice(120))
      .returning({ id: calls.id });
    callIds.push(...rest.map((row) => row.id));
    await expectAgreement(MOMENTS);

    // The calls move on: the waiting are answered or given up on, the live end and wrap up,
    // some agents press Done early, a call is re-filed as outbound, some are removed.
    const live = await database.db.select().from(calls).where(inArray(calls.id, callIds));
    for (const call of live) {
      const pick = next(6);
      if (call.answeredAt === null && call.endedAt === null) {
        if (pick < 3) {
          await database.db
            .update(calls)
            .set({ status: 'in-progress', answeredAt: seconds(call.createdAt, 3 + next(60)) })
            .where(eq(calls.id, call.id));
        } else if (pick < 5) {
          await database.db
            .update(calls)
            .set({
              status: 'completed',
              endedAt: seconds(call.createdAt, 40),
              reason: 'caller-hung-up',
            })
            .where(eq(calls.id, call.id));
        }
      } else if (call.answeredAt !== null && call.endedAt === null && pick < 4) {
        const ended = seconds(call.answeredAt, 60 + next(300));
        await database.db
          .update(calls)
          .set({
            status: 'completed',
            endedAt: ended,
            seconds: Math.round((ended.getTime() - call.answeredAt.getTime()) / 1000),
            wrapUpEndedAt: seconds(ended, 60),
          })
          .where(eq(calls.id, call.id));
      } else if (call.wrapUpEndedAt !== null && pick < 3) {
        await database.db
          .update(calls)
          .set({ wrapUpEndedAt: seconds(call.endedAt!, 5) })
          .where(eq(calls.id, call.id));
      } else if (pick === 5 && call.source === 'web') {
        await database.db.update(calls).set({ source: 'outbound' }).where(eq(calls.id, call.id));
      }
      // Writes that change no figure leave no delta.
      await database.db.update(calls).set({ lastSeenAt: new Date() }).where(eq(calls.id, call.id));
    }
    await database.db.delete(calls).where(inArray(calls.id, callIds.slice(0, 9)));
    await expectAgreement(MOMENTS);

    await foldFloorCounts(database.db);
    const [{ deltas }] = (await queryRows<{ deltas: number }>(
      database.db,
      sql`select count(*)::int as deltas from floor_count_deltas`,
    )) as [{ deltas: number }];
    expect(deltas).toBe(0);
    await expectAgreement(MOMENTS);
  });

  it('are counted again when the account changes its service level threshold', async () => {
    await database.db
      .update(accounts)
      .set({ serviceLevelSeconds: 35 })
      .where(eq(accounts.id, accountId));
    await expectAgreement(MOMENTS);
    const kept = await countedFigures(database.db, accountId, {
      start: DAY_START,
      end: DAY_END,
      at: MOMENTS[3]!,
      thresholdSeconds: 35,
    });
    await database.db
      .update(accounts)
      .set({ serviceLevelSeconds: 5 })
      .where(eq(accounts.id, accountId));
    const stricter = await countedFigures(database.db, accountId, {
      start: DAY_START,
      end: DAY_END,
      at: MOMENTS[3]!,
      thresholdSeconds: 5,
    });
    // The log answers calls after 0–59 s: a 5 s threshold is met by fewer than a 35 s one.
    expect(stricter.whole.service_level!).toBeLessThan(kept.whole.service_level!);
    await expectAgreement(MOMENTS);
  });

  it('count nothing of another account', async () => {
    const elsewhere = await countedFigures(database.db, otherAccountId, {
      start: DAY_START,
      end: DAY_END,
      at: MOMENTS[3]!,
      thresholdSeconds: 20,
    });
    const [{ offered }] = (await queryRows<{ offered: number }>(
      database.db,
      sql`select count(*)::int as offered from calls c where c.account_id = ${otherAccountId}
          and c.created_at >= ${DAY_START.toISOString()}::timestamptz
          and c.created_at < ${DAY_END.toISOString()}::timestamptz and ${OFFERED_CALL}`,
    )) as [{ offered: number }];
    expect(offered).toBeGreaterThan(0);
    expect(elsewhere.whole.offered).toBe(offered);
  });
});
