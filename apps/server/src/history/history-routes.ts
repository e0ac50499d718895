/** The call history: GET /api/v1/mycalls. */
import type { FastifyInstance } from 'fastify';
import { MyCallsQuery } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION } from '../auth/permissions';
import type { Db } from '../db/database';
import { parseWith } from '../http/validate';

/** Who may see the supervisors of a call: who may supervise. */
const SUPERVISE_PERMISSIONS = [PERMISSION.listen, PERMISSION.whisper, PERMISSION.barge];
import { pageHistory } from './history-repo';

/** Routes of the history. */
export function historyRoutes(deps: { db: Db }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/api/v1/mycalls', async (request) => {
      const { user } = sessionOf(request);
      const query = parseWith(MyCallsQuery, request.query, 'query');
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
