/** Lead intake: `POST /api/v1/leads` with `Authorization: Bearer <api key>`. */
import type { FastifyInstance } from 'fastify';
import { LeadIntakeBody } from '@leadline/contracts';
import type { CallFlows } from '../calls/call-flows';
import { parseWith } from '../http/validate';

/** The lead-intake route. */
export function leadsRoutes(deps: { flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/leads', { config: { auth: 'api-key' } }, async (request, reply) => {
      const body = parseWith(LeadIntakeBody, request.body);
      const result = await deps.flows.intakeLead(request.apiAccountId!, body);
      return reply.status(201).send(result);
    });
  };
}
