/**
 * The agent lists (transfer and conference panels), teams and caller numbers; the agent's own
 * status (Available / Away) and the end of their wrap-up (Done).
 */
import type { FastifyInstance } from 'fastify';
import {
  AgentsPageSchema,
  CallerNumbersResponseSchema,
  TeamsResponseSchema,
  TimeQuery,
  UsersPaginatedQuery,
  UserStatusBody,
  UserStatusResponseSchema,
  type UserStatusResponse,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { CallFlows } from '../calls/call-flows';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import { listTeams, pageAgents } from './agents-repo';
import { listCallerNumbers } from './caller-numbers-repo';
import type { Presence } from './users-repo';

const statusAnswer = (presence: Presence | null): UserStatusResponse => {
  if (!presence) throw new AppError('NOT_FOUND', 'User not found.');
  return {
    success: true,
    status: presence.status,
    is_available: presence.isAvailable,
    wrap_up_until: presence.wrapUpUntil?.toISOString() ?? null,
  };
};

const TAGS = ['Agents and teams'];

/** Routes of users and teams. */
export function usersRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    const status = {
      summary: 'Sets the agent Available or Away',
      description:
        "The agent's own status: `available` (takes calls when free) or `away`. The answer says where the agent is now (`available`, `away`, `on_call`, `wrap_up`, `offline`). Becoming available offers the agent a waiting lead at once.",
      tags: TAGS,
      body: UserStatusBody,
      response: { 200: UserStatusResponseSchema },
    } satisfies RouteDocs;
    app.put('/api/v1/user/status', { schema: status }, async (request) => {
      const { user } = sessionOf(request);
      const body = parseRequest(request, 'body', status.body);
      return statusAnswer(
        await deps.flows.presence.setAvailable(user.id, body.status === 'available'),
      );
    });

    const wrapUpDone = {
      summary: 'Done: ends the agent’s wrap-up',
      description:
        "Done: ends the agent's wrap-up after a call (routing skips an agent who wraps up, until Done or the profile's `wrap_up_seconds`, 60 by default). The console sends it when the agent leaves the Thank you or note view.",
      tags: TAGS,
      response: { 200: UserStatusResponseSchema },
    } satisfies RouteDocs;
    app.post('/api/v1/user/wrap-up/done', { schema: wrapUpDone }, async (request) => {
      const { user } = sessionOf(request);
      return statusAnswer(await deps.flows.presence.endWrapUp(user.id));
    });

    const agents = {
      summary: 'Agents of the account, for transfer and conference',
      description:
        'Agents of the account (the user left out) for the transfer and conference panels, 10 per page by name. `status`: `online` (default: online in the app or on mobile), `all`, `available` (available, online, not on a call), `on_call`; `search` on the name (case-insensitive, contains), `team_id`. `on_call_id` is the call the agent is on (the id listen / whisper / barge take).',
      tags: TAGS,
      querystring: UsersPaginatedQuery,
      response: { 200: AgentsPageSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/users/paginated', { schema: agents }, async (request) => {
      const { user } = sessionOf(request);
      const query = parseRequest(request, 'querystring', agents.querystring);
      return pageAgents(deps.db, {
        accountId: user.accountId,
        excludeUserId: user.id,
        status: query.status,
        search: query.search || undefined,
        teamId: query.team_id === '' ? undefined : query.team_id,
        page: query.page,
        now: deps.flows.now(),
      });
    });

    const teams = {
      summary: 'The account’s teams',
      description:
        "The account's teams; `is_available`: some member could take a transfer now (available, not on a call, online — in the app if app-only). The `time` query is a cache-buster and ignored.",
      tags: TAGS,
      querystring: TimeQuery,
      response: { 200: TeamsResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/teams', { schema: teams }, async (request) => {
      const { user } = sessionOf(request);
      parseRequest(request, 'querystring', teams.querystring);
      return { data: await listTeams(deps.db, user.accountId, deps.flows.now()) };
    });

    const callerIds = {
      summary: 'The account’s caller numbers',
      description:
        "The account's caller numbers for the New Call panel's Caller ID selector, answered as `{ data: [{ id, name, phone_number_formatted }, …] }` (spec section 7 says the answer is the list itself; Leadline wraps it in `data` like every other list, e.g. `GET /api/v1/teams`). The `time` query is a cache-buster and ignored.",
      tags: TAGS,
      querystring: TimeQuery,
      response: { 200: CallerNumbersResponseSchema },
    } satisfies RouteDocs;
    app.get('/api/v1/callerids', { schema: callerIds }, async (request) => {
      const { user } = sessionOf(request);
      parseRequest(request, 'querystring', callerIds.querystring);
      // `{ data: [...] }`, not the bare list of spec section 7 (README: where we depart).
      return { data: await listCallerNumbers(deps.db, user.accountId) };
    });
  };
}
