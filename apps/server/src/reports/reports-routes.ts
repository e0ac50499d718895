/**
 * Reports (issue 39): `GET /api/v1/reports/calls.csv?from=YYYY-MM-DD&to=YYYY-MM-DD`, every call
 * of the account over those days of its time zone, streamed as CSV. Supervisors and admins of
 * the account (agents get 403); read from the database, so every instance serves it.
 */
import type { FastifyInstance } from 'fastify';
import { ErrorResponseSchema, ReportRangeQuery, ReportSummarySchema } from '@leadline/contracts';
import type { Db } from '../db/database';
import type { RouteDocs } from '../http/api-docs';
import { AppError } from '../http/errors';
import { parseRequest } from '../http/validate';
import { requireSupervisor } from '../floor/floor-routes';
import { callsCsv } from './calls-csv';
import { reportSummary } from './report-summary';

/** Registers the report routes. `now` is the clock (tests inject theirs). */
export function reportsRoutes(deps: { db: Db; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return async (app: FastifyInstance): Promise<void> => {
    const summary = {
      summary: 'Summaries of a range of days',
      description:
        "Over the days `from` to `to` of the account's time zone (both included, at most 366): the offered calls' figures (offered, answered, missed, abandoned, answer rate, average speed of answer, average handle time, service level, talk seconds: the floor's definitions) by day, by team (the profile's) and by profile; by agent, the calls they took (any direction), answered, talk seconds and average handle time; the calls by disposition and by tag. Supervisors and admins only: an agent gets 403.",
      tags: ['Reports'],
      querystring: ReportRangeQuery,
      response: { 200: ReportSummarySchema, 403: ErrorResponseSchema, 422: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/reports/summary', { schema: summary }, async (request) => {
      const { accountId } = requireSupervisor(request);
      const range = parseRequest(request, 'querystring', summary.querystring);
      const found = await reportSummary(deps.db, accountId, range, now());
      if (!found) throw new AppError('NOT_FOUND', 'Account not found.');
      return found;
    });

    const csv = {
      summary: 'Every call of a range of days, as CSV',
      description:
        "Every call of the account created from `from` to `to` (both included, days of the account's time zone), oldest first, as CSV with a header row: date and time (the account's zone), direction, lead, number, agent, team, profile, status and reason (as History shows them), wait, talk and wrap-up seconds, disposition, tag, notes count and the recording's link. Streamed: any number of calls. Text a spreadsheet would run as a formula starts with `'`. At most 366 days. Supervisors and admins only: an agent gets 403.",
      tags: ['Reports'],
      querystring: ReportRangeQuery,
      response: {
        200: {
          description: 'The CSV, with a header row.',
          content: { 'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } } },
        },
        422: ErrorResponseSchema,
        403: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    app.get('/api/v1/reports/calls.csv', { schema: csv }, async (request, reply) => {
      const { accountId } = requireSupervisor(request);
      const range = parseRequest(request, 'querystring', csv.querystring);
      const stream = await callsCsv(deps.db, accountId, range, now());
      if (!stream) throw new AppError('NOT_FOUND', 'Account not found.');
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header(
          'content-disposition',
          `attachment; filename="calls-${range.from}-to-${range.to}.csv"`,
        )
        .send(stream);
    });
  };
}
