/**
 * `GET /api/v1/reports/calls.csv` (issue 39) on the test product: the header and the rows as
 * History shows them, in the account's zone; who may have it; every refusal of a bad range; text
 * a spreadsheet would run; and an export of several batches arriving whole, in order.
 */
import { eq } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { CALLS_CSV_COLUMNS, ReportSummarySchema } from '@leadline/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, calls, leads } from '../db/schema';
import { fingerprint } from '../test-support/db-fingerprint';
import { startFixture, type Fixture } from '../test-support/fixture';
import { CSV_BATCH_ROWS } from './calls-csv';

let f: Fixture;
let accountId: number;
beforeAll(async () => {
  f = await startFixture();
  accountId = (await f.userOf(f.supervisor)).accountId;
});
afterAll(() => f.t.close());

const csvOf = (query: string, headers = f.auth(f.supervisor, false)) =>
  f.t.app.inject({ method: 'GET', url: `/api/v1/reports/calls.csv${query}`, headers });

const rowsOf = (body: string): string[][] => {
  const rows: unknown = parse(body);
  return rows as string[][];
};

describe('GET /api/v1/reports/calls.csv', () => {
  it('holds each call of the days asked, in the account’s zone, with History’s status', async () => {
    await f.t.database.db
      .update(accounts)
      .set({ timeZone: 'America/New_York' })
      .where(eq(accounts.id, accountId));
    const [lead] = await f.t.database.db
      .insert(leads)
      .values({ accountId, fname: '=HYPERLINK("x")', lname: 'Doe', phoneNumber: '+15550109999' })
      .returning();
    const base = {
      accountId,
      leadId: lead!.id,
      source: 'web' as const,
      direction: 'inbound' as const,
      phoneNumber: '+15550109999',
    };
    // 23:59 New York on 1 March (04:59 UTC on the 2nd): a talked call with a 30 s wrap-up.
    await f.t.database.db.insert(calls).values({
      ...base,
      sid: 'CA-csv-1',
      status: 'completed',
      createdAt: new Date('2026-03-02T04:59:00Z'),
      answeredAt: new Date('2026-03-02T04:59:12Z'),
      endedAt: new Date('2026-03-02T05:04:12Z'),
      seconds: 300,
      wrapUpEndedAt: new Date('2026-03-02T05:04:42Z'),
    });
    // 00:30 New York on 2 March: missed, nobody answered after 40 s.
    await f.t.database.db.insert(calls).values({
      ...base,
      sid: 'CA-csv-2',
      status: 'missed',
      reason: 'no-agent-answered',
      createdAt: new Date('2026-03-02T05:30:00Z'),
      endedAt: new Date('2026-03-02T05:30:40Z'),
    });
    const res = await csvOf('?from=2026-03-01&to=2026-03-01');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="calls-2026-03-01-to-2026-03-01.csv"',
    );
    const [header, ...rows] = rowsOf(res.body);
    expect(header).toEqual([...CALLS_CSV_COLUMNS]);
    expect(rows).toEqual([
      [
        '2026-03-01 23:59:00',
        'inbound',
        `'=HYPERLINK("x") Doe`,
        '+15550109999',
        '',
        '',
        '',
        '05:00',
        '',
        '12',
        '300',
        '30',
        '',
        '',
        '0',
        '',
      ],
    ]);
    const next = rowsOf((await csvOf('?from=2026-03-02&to=2026-03-02')).body).slice(1);
    expect(next).toHaveLength(1);
    expect(next[0]!.slice(0, 12)).toEqual([
      '2026-03-02 00:30:00',
      'inbound',
      `'=HYPERLINK("x") Doe`,
      '+15550109999',
      '',
      '',
      '',
      'missed',
      'No agents answered',
      '40',
      '0',
      '',
    ]);
  });

  it('answers agents 403 and strangers 401', async () => {
    const agent = await csvOf('?from=2026-03-01&to=2026-03-02', f.auth(f.agent1, false));
    expect(agent.statusCode).toBe(403);
    expect(agent.json()).toEqual({
      error: 'Only a supervisor or an administrator of this account can see this.',
    });
    expect((await csvOf('?from=2026-03-01&to=2026-03-02', {})).statusCode).toBe(401);
  });

  it.each([
    ['', 'The from field is required.'],
    ['?from=2026-03-01', 'The to field is required.'],
    ['?from=03/01/2026&to=2026-03-02', 'The from date must be written YYYY-MM-DD.'],
    ['?from=2026-02-30&to=2026-03-02', 'The from date does not exist.'],
    ['?from=2026-03-05&to=2026-03-02', 'The from date must not be after the to date.'],
    ['?from=2025-01-01&to=2026-03-02', 'A report covers at most 366 days.'],
  ])('refuses %s with a 422 that says why, changing nothing', async (query, message) => {
    const before = await fingerprint(f.t.database.db);
    const res = await csvOf(query);
    expect(res.statusCode, res.body).toBe(422);
    expect(String(res.json<{ error: string }>().error)).toContain(message);
    expect(await fingerprint(f.t.database.db)).toBe(before);
  });

  it('streams an export of several batches whole, oldest first', async () => {
    const count = CSV_BATCH_ROWS * 2 + 37;
    const values = Array.from({ length: count }, (_, i) => ({
      accountId,
      sid: `CA-bulk-${i}`,
      source: 'web' as const,
      status: 'missed' as const,
      reason: 'no-agent-answered' as const,
      createdAt: new Date(Date.UTC(2026, 5, 10, 12, 0, i)),
      endedAt: new Date(Date.UTC(2026, 5, 10, 12, 0, i + 5)),
    }));
    for (let i = 0; i < values.length; i += 500) {
      await f.t.database.db.insert(calls).values(values.slice(i, i + 500));
    }
    const res = await csvOf('?from=2026-06-10&to=2026-06-10');
    expect(res.statusCode).toBe(200);
    const rows = rowsOf(res.body).slice(1);
    expect(rows).toHaveLength(count);
    expect(rows[0]![0]).toBe('2026-06-10 08:00:00');
    expect(rows.at(-1)![0]).toBe(
      `2026-06-10 08:${String(Math.floor((count - 1) / 60)).padStart(2, '0')}:${String((count - 1) % 60).padStart(2, '0')}`,
    );
  });
});

describe('GET /api/v1/reports/summary', () => {
  const summaryOf = (query: string, headers: Record<string, string>) =>
    f.t.app.inject({ method: 'GET', url: `/api/v1/reports/summary${query}`, headers });

  it('answers supervisors with the summaries (the figures: report-summary tests)', async () => {
    const res = await summaryOf('?from=2026-03-01&to=2026-03-02', f.auth(f.supervisor, false));
    expect(res.statusCode, res.body).toBe(200);
    const summary = ReportSummarySchema.parse(res.json());
    expect(summary.by_day.map((day) => [day.day, day.offered, day.missed])).toEqual([
      ['2026-03-01', 1, 0],
      ['2026-03-02', 1, 1],
    ]);
  });

  it('refuses agents (403), strangers (401) and a bad range (422)', async () => {
    const agent = await summaryOf('?from=2026-03-01&to=2026-03-02', f.auth(f.agent1, false));
    expect(agent.statusCode).toBe(403);
    expect((await summaryOf('?from=2026-03-01&to=2026-03-02', {})).statusCode).toBe(401);
    const bad = await summaryOf('?from=2026-03-03&to=2026-03-02', f.auth(f.supervisor, false));
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ error: 'The from date must not be after the to date.' });
  });
});
