/**
 * The sandbox phone network's own endpoints (embedded mode only):
 * - `POST /api/v1/sandbox/inbound` makes a virtual caller dial one of the account's caller
 *   numbers, as a lead calling back would. The caller is on the line at once (a steady voice)
 *   and the call is offered to the agents, with the number's name as the banner. Authenticated
 *   with the lead-intake API key, like `/api/v1/leads`.
 * - `POST /api/v1/sandbox/calls/{id}/hangup`: the lead (or caller) of the account's call hangs
 *   up, as a person on that line would (API key, like the inbound route).
 * - `GET /api/v1/sandbox/calls`: what the virtual network received for the account's calls
 *   (the number called, the caller ID it came from, how it went, the digits it heard).
 * - `GET /api/v1/sandbox/sms`: the account's text messages (the sandbox outbox).
 * The two lists are for a person (or a test) looking at what the product did: session auth.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import {
  ErrorResponseSchema,
  IdParams,
  RefusalSchema,
  SandboxInboundBody,
  TimeQuery,
  type SandboxInboundResponse,
} from '@leadline/contracts';
import type { SandboxCall } from '@leadline/voice';
import { sessionOf } from '../auth/auth-plugin';
import type { CallFlows } from '../calls/call-flows';
import { findAccountCall, livePhones } from '../calls/calls-repo';
import type { Db } from '../db/database';
import { calls } from '../db/schema';
import { AppError } from '../http/errors';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import type { SmsService } from '../sms/sms-sender';
import { findCallerNumberByPhone } from '../users/caller-numbers-repo';

/** The sandbox network as its endpoints see it. */
export interface SandboxNetwork {
  /** Every call the virtual network placed or received, oldest first. */
  sandboxCalls(): SandboxCall[];
  /** The person on a phone party of the call hangs up; false if it is not in the call. */
  sandboxHangUp(callSid: string, participantId: string): boolean;
}

const TAGS = ['Sandbox phone network (embedded mode)'];

/** The sandbox routes. */
export function sandboxRoutes(deps: {
  db: Db;
  flows: CallFlows;
  sms: SmsService;
  network: SandboxNetwork | null;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    const inbound = {
      summary: 'A virtual caller dials one of the account’s numbers',
      description:
        "The sandbox phone network's inbound call: a virtual caller `from` dials `to`, one of the API key's account's caller numbers. The call is stored as `inbound`, the caller is on the line at once (a voice), and it is offered like a lead, with the number's name as the banner. `call.status`: `ringing` (with `agent_id`), or how it ended when nobody could take it (`busy`, `offline`; a caller does not wait in the queue). Both numbers are normalised to E.164 (422 naming the field); a number that is not the account's is 404. Not served in production mode.",
      tags: TAGS,
      body: SandboxInboundBody,
      response: {
        201: {
          description:
            '`{ success: true, call: { id, sid, direction, phone_number, status, agent_id, reason } }`',
        },
        404: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    const inboundRoute = { config: { auth: 'api-key' as const }, schema: inbound };
    app.post('/api/v1/sandbox/inbound', inboundRoute, async (request, reply) => {
      const accountId = request.apiAccountId!;
      const body = parseRequest(request, 'body', inbound.body);
      const number = await findCallerNumberByPhone(deps.db, body.to);
      // Another account's number is as unknown as a number nobody has.
      if (!number || number.accountId !== accountId) {
        throw new AppError('NOT_FOUND', `${body.to} is not one of this account's caller numbers.`);
      }
      const { call, outcome } = await deps.flows.inbound(accountId, number, body.from);
      const answer: SandboxInboundResponse = {
        success: true,
        call: {
          id: call.id,
          sid: call.sid,
          direction: 'inbound',
          phone_number: body.from,
          status: call.status,
          agent_id: outcome.kind === 'rang' ? outcome.agentId : null,
          reason: call.reason,
        },
      };
      return reply.status(201).send(answer);
    });

    const hangUp = {
      summary: 'The person on the line of a call hangs up',
      description:
        "The lead (or caller) on the line of the account's call `{id}` hangs up, as a person would: the call ends when its last phone party and its last agent have left. 409 when nobody is on the line. Not served in production mode.",
      tags: TAGS,
      params: IdParams,
      response: {
        200: { description: '`{ success: true, hung_up: [<phone numbers>] }`' },
        404: ErrorResponseSchema,
        409: RefusalSchema,
      },
    } satisfies RouteDocs;
    app.post(
      '/api/v1/sandbox/calls/:id/hangup',
      { config: { auth: 'api-key' }, schema: hangUp },
      async (request) => {
        const { id } = parseRequest(request, 'params', hangUp.params);
        const call = await findAccountCall(deps.db, request.apiAccountId!, id);
        if (!call) throw new AppError('NOT_FOUND', 'Call not found.');
        const phones = (await livePhones(deps.db, call.id)).filter((p) => p.state === 'answered');
        const hungUp = phones.filter((p) => deps.network?.sandboxHangUp(call.sid, p.participantId));
        if (hungUp.length === 0) {
          throw new AppError('CALL_NOT_ACTIVE', 'Nobody is on the line of this call.');
        }
        return { success: true, hung_up: hungUp.map((p) => p.phoneNumber) };
      },
    );

    const sandboxCalls = {
      summary: 'What the sandbox network received for the account’s calls',
      description:
        "What the sandbox phone network received for the account's calls: the number called, the caller ID it came from, its state (`ringing`, `answered`, `ended`, `busy`, `no-answer`, `failed`), its times and the digits it heard (docs/sandbox-numbers.md). Not served in production mode.",
      tags: TAGS,
      querystring: TimeQuery,
      response: { 200: { description: '`{ data: [{ call_id, … }] }`' } },
    } satisfies RouteDocs;
    app.get('/api/v1/sandbox/calls', { schema: sandboxCalls }, async (request) => {
      const { user } = sessionOf(request);
      parseRequest(request, 'querystring', sandboxCalls.querystring);
      const log = deps.network?.sandboxCalls() ?? [];
      const sids = [...new Set(log.map((entry) => entry.callSid))];
      const mine =
        sids.length === 0
          ? []
          : await deps.db
              .select({ id: calls.id, sid: calls.sid })
              .from(calls)
              .where(and(eq(calls.accountId, user.accountId), inArray(calls.sid, sids)));
      const idOf = new Map(mine.map((c) => [c.sid, c.id]));
      return {
        data: log
          .filter((entry) => idOf.has(entry.callSid))
          .map((entry) => ({ call_id: idOf.get(entry.callSid)!, ...entry })),
      };
    });

    const outbox = {
      summary: 'The sandbox outbox: the account’s text messages',
      description:
        "The sandbox outbox: the account's text messages, newest first, with the number they went to and from, and whether the sender took them. Not served in production mode.",
      tags: TAGS,
      querystring: TimeQuery,
      response: { 200: { description: '`{ data: [<text messages>] }`' } },
    } satisfies RouteDocs;
    app.get('/api/v1/sandbox/sms', { schema: outbox }, async (request) => {
      const { user } = sessionOf(request);
      parseRequest(request, 'querystring', outbox.querystring);
      return { data: await deps.sms.outbox(user.accountId) };
    });
  };
}
