/** Placing calls from the console: New Call (outbound) and Retry. */
import type { FastifyInstance } from 'fastify';
import { OutboundCallBody, RetryCallBody, type OutboundCallResponse } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { toLeadResource } from '../leads/leads-repo';
import { NOBODY_MESSAGES, type CallFlows } from './call-flows';
import { toCallResource } from './calls-repo';

/** Routes of placing calls. */
export function outboundRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/calls/twilio/outbound', async (request): Promise<OutboundCallResponse> => {
      const { user } = sessionOf(request);
      const body = parseWith(OutboundCallBody, request.body);
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
    });

    app.post('/api/v1/calls/twilio', async (request) => {
      const { user } = sessionOf(request);
      requirePermission(user, PERMISSION.retry, 'retry calls');
      const body = parseWith(RetryCallBody, request.body);
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
