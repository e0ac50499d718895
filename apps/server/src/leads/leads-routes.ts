/**
 * Lead intake: `POST /api/v1/leads` with `Authorization: Bearer <api key>`. The lead gets the
 * key's profile (set by the admin, issue 37), else the account's first profile.
 */
import type { FastifyInstance } from 'fastify';
import { LeadIntakeBody, type LeadIntakeResponse } from '@leadline/contracts';
import { toLeadResource } from './leads-repo';
import type { CallFlows } from '../calls/call-flows';
import { parseWith } from '../http/validate';

/** The lead-intake route. */
export function leadsRoutes(deps: { flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/leads', { config: { auth: 'api-key' } }, async (request, reply) => {
      const body = parseWith(LeadIntakeBody, request.body);
      const { lead, call, outcome } = await deps.flows.intakeLead(
        request.apiAccountId!,
        body,
        request.apiProfileId,
      );
      const answer: LeadIntakeResponse = {
        success: true,
        lead: toLeadResource(lead),
        call: {
          id: call.id,
          status: call.status,
          agent_id: outcome.kind === 'rang' ? outcome.agentId : null,
          reason: call.reason,
        },
      };
      return reply.status(201).send(answer);
    });
  };
}
