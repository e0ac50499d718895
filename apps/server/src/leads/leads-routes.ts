/**
 * Lead intake: `POST /api/v1/leads` with `Authorization: Bearer <api key>`. The lead gets the
 * key's profile (set by an admin), else the account's first profile. The lead passes
 * the dial guard as the call it becomes (`CallFlows.intakeLead`): an intake key sits in web
 * forms' back ends, and a lead is dialled when an agent takes it (with Auto Accept, unattended).
 */
import type { FastifyInstance } from 'fastify';
import {
  ErrorResponseSchema,
  LeadIntakeBody,
  RefusalSchema,
  type LeadIntakeResponse,
} from '@leadline/contracts';
import type { RouteDocs } from '../http/api-docs';
import { toLeadResource } from './leads-repo';
import type { CallFlows } from '../calls/call-flows';
import { parseRequest } from '../http/validate';

/** The lead-intake route. */
export function leadsRoutes(deps: { flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    const intake = {
      summary: 'Lead intake: a new lead, rung to an agent at once',
      description: `${"Lead intake: stores the lead, creates its call and offers it to one eligible agent at a time, longest idle first (online, available, not on or rung for a call, not wrapping up, in the profile's team): `From: client:<call_user_id>`, banner \"Incoming Lead!\". Ignore, reject or the ring timeout move it to the next agent. `call.status` says what happened: `ringing` (with `agent_id`), `queued` (nobody can take it now: `reason` `all-agents-busy` or `no-agents-online`; it is offered as soon as an agent is free, until the profile's queue timeout), or `offline` with `reason` `outside-hours` (the profile's availability hours). Unknown fields are ignored; the phone number is normalised to E.164."} The lead gets the API key's profile (set by an administrator), else the account's first profile. The lead is the call it becomes: a number the account may not call (a premium-rate or other caller-pays type, a country outside the account's and the operator's countries) is 422 with the sentence New Call gives (\`Calls to premium-rate numbers are not allowed.\`), and each lead counts in the account's calls per minute (past it 429 with the wait); with Twilio, an account without a caller number of its own is 403. Nothing is stored then. When an agent takes the lead its number is checked again before it is dialled.`,
      tags: ['Leads'],
      body: LeadIntakeBody,
      response: {
        201: {
          description: '`{ success: true, lead, call: { id, status, agent_id, reason } }`',
        },
        403: RefusalSchema,
        422: ErrorResponseSchema,
        429: RefusalSchema,
      },
    } satisfies RouteDocs;
    const route = { config: { auth: 'api-key' as const }, schema: intake };
    app.post('/api/v1/leads', route, async (request, reply) => {
      const body = parseRequest(request, 'body', intake.body);
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
