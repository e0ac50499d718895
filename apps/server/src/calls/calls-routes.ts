/** The console's call endpoints: the call user, Ignore, disposition and notes. */
import type { FastifyInstance } from 'fastify';
import {
  DispositionBody,
  IdParams,
  NoteBody,
  type CallType,
  type CallUserResponse,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import type { CallFlows } from './call-flows';
import {
  findAccountCall,
  findUserCallUser,
  insertNote,
  setDisposition,
  toCallResource,
} from './calls-repo';

/** Routes of the console's calls. */
export function callsRoutes(deps: { db: Db; flows: CallFlows }) {
  return async (app: FastifyInstance): Promise<void> => {
    const accountCall = async (accountId: number, params: unknown) => {
      const { id } = parseWith(IdParams, params, 'path');
      const call = await findAccountCall(deps.db, accountId, id);
      if (!call) throw new AppError('NOT_FOUND', 'Call not found.');
      return call;
    };

    app.get('/api/v1/callusers/:id', async (request): Promise<CallUserResponse> => {
      const { user } = sessionOf(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const found = await findUserCallUser(deps.db, user.id, id);
      if (!found) throw new AppError('NOT_FOUND', 'Call user not found.');
      return {
        call: await toCallResource(deps.db, found.call),
        type: found.callUser.type as CallType,
        autoaccept: found.callUser.autoaccept,
      };
    });

    app.post('/apps/webrtc/:id/reject', async (request) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      await deps.flows.agentIgnored(call, user.id);
      return { success: true };
    });

    app.post('/apps/webrtc/:id/disposition', async (request) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      const body = parseWith(DispositionBody, request.body);
      await setDisposition(deps.db, call.id, body.status);
      return { success: true };
    });

    app.post('/api/v1/notes', async (request, reply) => {
      const { user } = sessionOf(request);
      const body = parseWith(NoteBody, request.body);
      const call = await findAccountCall(deps.db, user.accountId, body.call_id);
      if (!call) throw new AppError('NOT_FOUND', 'Call not found.');
      const note = await insertNote(deps.db, {
        accountId: user.accountId,
        callId: call.id,
        userId: user.id,
        content: body.content,
      });
      return reply.status(201).send({ success: true, note: { id: note.id } });
    });
  };
}
