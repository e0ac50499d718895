/**
 * The sandbox phone network's own endpoints (embedded mode only): `POST /api/v1/sandbox/inbound`
 * makes a virtual caller dial one of the account's caller numbers, as a lead calling back would.
 * The caller is on the line at once (a steady voice) and an available agent is rung with the
 * number's name as the banner. Authenticated with the lead-intake API key, like `/api/v1/leads`.
 */
import type { FastifyInstance } from 'fastify';
import { SandboxInboundBody, type SandboxInboundResponse } from '@leadline/contracts';
import type { CallFlows } from '../calls/call-flows';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { findCallerNumberByPhone } from '../users/caller-numbers-repo';

/** The sandbox routes. */
export function sandboxRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/sandbox/inbound', { config: { auth: 'api-key' } }, async (request, reply) => {
      const accountId = request.apiAccountId!;
      const body = parseWith(SandboxInboundBody, request.body);
      const number = await findCallerNumberByPhone(deps.db, body.to);
      // Another account's number is as unknown as a number nobody has.
      if (!number || number.accountId !== accountId) {
        throw new AppError('NOT_FOUND', `${body.to} is not one of this account's caller numbers.`);
      }
      const call = await deps.flows.inbound(accountId, number, body.from);
      const answer: SandboxInboundResponse = {
        success: true,
        call: { id: call.id, sid: call.sid, direction: 'inbound', phone_number: body.from },
      };
      return reply.status(201).send(answer);
    });
  };
}
