/** Placing calls from the console: New Call (outbound) and Retry. */
import type { FastifyInstance } from 'fastify';
import { OutboundCallBody, RetryCallBody, type OutboundCallResponse } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { toLeadResource } from '../leads/leads-repo';
import { findCallerNumber } from '../users/caller-numbers-repo';
import type { CallFlows } from './call-flows';
import { findLiveParticipation } from './calls-repo';

/** Routes of placing calls. */
export function outboundRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/calls/twilio/outbound', async (request): Promise<OutboundCallResponse> => {
      const { user } = sessionOf(request);
      const body = parseWith(OutboundCallBody, request.body);
      if (body.agent_id !== user.id) {
        throw new AppError('VALIDATION_FAILED', 'The agent id must be your own user id.');
      }
      let callerNumberId: number | null = null;
      if (body.caller_id !== undefined) {
        const number = await findCallerNumber(deps.db, user.accountId, body.caller_id);
        if (!number)
          throw new AppError(
            'VALIDATION_FAILED',
            'The caller id is not one of your caller numbers.',
          );
        callerNumberId = number.id;
      }
      if (await findLiveParticipation(deps.db, user.accountId, user.id))
        throw new AppError('ALREADY_ON_CALL');
      const { call, callUser, lead } = await deps.flows.placeOutbound(user, body, callerNumberId);
      return {
        success: true,
        call_user_id: callUser.id,
        call: { id: call.id, lead: toLeadResource(lead), phone_number: lead.phoneNumber },
      };
    });

    app.post('/api/v1/calls/twilio', async (request) => {
      const { user } = sessionOf(request);
      requirePermission(user, PERMISSION.retry, 'retry calls');
      const body = parseWith(RetryCallBody, request.body);
      const { call, lead } = await deps.flows.retry(user, body);
      return { success: true, call: { id: call.id, lead: toLeadResource(lead) } };
    });
  };
}
