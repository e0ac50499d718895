/** Placing calls from the console: New Call (outbound) and Retry. */
import type { FastifyInstance } from 'fastify';
import {
  OutboundCallBody,
  OutboundCallResponseSchema,
  RefusalSchema,
  RetryCallBody,
  RetryCallResponseSchema,
  type OutboundCallResponse,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import { toLeadResource } from '../leads/leads-repo';
import { NOBODY_MESSAGES, type CallFlows } from './call-flows';
import { toCallResource } from './call-resource-repo';

const TAGS = ['Calls'];

/** Routes of placing calls. */
export function outboundRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    const outbound = {
      summary: 'New Call: places a call to a number',
      description:
        "New Call: creates the call (and the lead, or updates its names) and the user's call user; the console then connects the softphone with `call_user_id` and `To`. `agent_id` must be the user; `caller_id` one of the account's caller numbers (default: the account's default). 409 when the user is already on a call. The dial guard (see Dialling rules in docs/api.md) refuses a number the account may not call (403 'Calls to premium-rate numbers are not allowed.', 'Calls to Russia are not allowed for this account.'), a second call while one is being placed (409), the limits (429) and, with Twilio, an account without a caller number of its own (403); nothing is stored then.",
      tags: TAGS,
      body: OutboundCallBody,
      response: {
        200: OutboundCallResponseSchema,
        403: RefusalSchema,
        409: RefusalSchema,
        429: RefusalSchema,
      },
    } satisfies RouteDocs;
    const outboundRoute = { schema: outbound };
    app.post(
      '/api/v1/calls/twilio/outbound',
      outboundRoute,
      async (request): Promise<OutboundCallResponse> => {
        const { user } = sessionOf(request);
        const body = parseRequest(request, 'body', outbound.body);
        if (body.agent_id !== user.id) {
          throw new AppError('VALIDATION_FAILED', 'The agent id must be your own user id.');
        }
        const { call, callUser, lead } = await deps.flows.placeOutbound(user, body);
        // The whole call, as GET /api/v1/callusers/{id} gives it: the console goes on from this
        // answer without loading the call, so its profile (Tags & Stages) must be in it.
        const resource = await toCallResource(deps.db, call);
        return {
          success: true,
          call_user_id: callUser.id,
          call: { ...resource, lead: toLeadResource(lead), phone_number: lead.phoneNumber },
        };
      },
    );

    const retry = {
      summary: 'Retry: calls a lead again',
      description:
        "Retry: a new call to the lead with this number (the account's, or a new one), offered to the user first (their wrap-up ends: they asked), else to whoever can take it; dialled from `caller_id` (optional) or the account's default. Permission `app-retry`. `success: true` only when an agent is rung (`call.agent_id`); otherwise `{ success: false, error }` says why (e.g. 'All agents are busy.'). The dial guard (see Dialling rules in docs/api.md) may refuse it first (403, 409, 429 with its sentence); nothing is stored then.",
      tags: TAGS,
      body: RetryCallBody,
      response: {
        200: RetryCallResponseSchema,
        403: RefusalSchema,
        409: RefusalSchema,
        429: RefusalSchema,
      },
    } satisfies RouteDocs;
    app.post('/api/v1/calls/twilio', { schema: retry }, async (request) => {
      const { user } = sessionOf(request);
      requirePermission(user, PERMISSION.retry, 'retry calls');
      const body = parseRequest(request, 'body', retry.body);
      const { call, lead, outcome } = await deps.flows.retry(user, body);
      const answer = {
        call: {
          id: call.id,
          status: call.status,
          agent_id: outcome.kind === 'rang' ? outcome.agentId : null,
          lead: toLeadResource(lead),
        },
      };
      // Truthful: success only when an agent is being rung for it.
      return outcome.kind === 'rang'
        ? { success: true, ...answer }
        : { success: false, error: NOBODY_MESSAGES[outcome.reason], ...answer };
    });
  };
}
