/** The call history: GET /api/v1/mycalls. */
import type { FastifyInstance } from 'fastify';
import { HistoryPageSchema, MyCallsQuery } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION } from '../auth/permissions';
import type { Db } from '../db/database';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';

/** Who may see the supervisors of a call: who may supervise. */
const SUPERVISE_PERMISSIONS = [PERMISSION.listen, PERMISSION.whisper, PERMISSION.barge];
import { pageHistory } from './history-repo';

/** Routes of the history. */
export function historyRoutes(deps: { db: Db }) {
  return async (app: FastifyInstance): Promise<void> => {
    const myCalls = {
      summary: 'The user’s call history',
      description:
        'The user\'s call history, newest first: calls they took or were rung for. `limit` (1–50, default 5) and `page`. Rows as the spec\'s "Call history row" plus `status_display` and `reason` computed as section 4 says (missed / busy / offline / in-progress / ringing, else the duration or "No Answer"; reasons "No agents answered", "Outside availability hours", "All agents busy"), `retry` (the Retry button applies: a lead and the app-retry permission) and `lead_retry` (its payload). `created_at` is the ISO time (UTC); `time_formatted` is the same time written out in UTC and saying so ("Nov 25, 2026, 6:40 PM UTC"): the server does not know the reader\'s zone, so the console shows `created_at` in the browser\'s zone instead (a call of today as its time, older ones with the date).',
      tags: ['History'],
      querystring: MyCallsQuery,
      response: { 200: HistoryPageSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/mycalls', { schema: myCalls }, async (request) => {
      const { user } = sessionOf(request);
      const query = parseRequest(request, 'querystring', myCalls.querystring);
      return pageHistory(deps.db, {
        accountId: user.accountId,
        userId: user.id,
        canRetry: user.permissions.includes(PERMISSION.retry),
        canSeeSupervision: SUPERVISE_PERMISSIONS.some((p) => user.permissions.includes(p)),
        limit: query.limit,
        page: query.page,
      });
    });
  };
}
