/** Call control: conference, transfer, listen / whisper / barge, hold / unhold, add lead. */
import type { FastifyInstance } from 'fastify';
import { ConferenceBody, ConferenceLeadBody, IdParams, TransferBody } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db } from '../db/database';
import { parseWith } from '../http/validate';
import { toLeadResource } from '../leads/leads-repo';
import type { CallControl, SuperviseMode } from './call-control';
import { toCallResource } from './calls-repo';

const SUPERVISE_MODES: SuperviseMode[] = ['listen', 'whisper', 'barge'];

/** Routes of call control. */
export function callControlRoutes(deps: { db: Db; control: CallControl }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/calls/conference', async (request) => {
      const { user } = sessionOf(request);
      const body = parseWith(ConferenceBody, request.body);
      await deps.control.conference(user, body.user_id);
      return { success: true };
    });

    app.post('/api/v1/calls/:id/transfer', async (request) => {
      const { user } = sessionOf(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const body = parseWith(TransferBody, request.body);
      await deps.control.transfer(user, id, body);
      return { success: true };
    });

    for (const mode of SUPERVISE_MODES) {
      app.post(`/api/v1/calls/:id/${mode}`, async (request) => {
        const { user } = sessionOf(request);
        requirePermission(
          user,
          PERMISSION[mode],
          `${mode} ${mode === 'barge' ? 'into' : 'to'} calls`,
        );
        const { id } = parseWith(IdParams, request.params, 'path');
        await deps.control.supervise(user, id, mode);
        return { success: true };
      });
    }

    for (const [path, held] of [
      ['hold', true],
      ['unhold', false],
    ] as const) {
      app.put(`/api/v1/calls/:id/${path}`, async (request) => {
        const { user } = sessionOf(request);
        const { id } = parseWith(IdParams, request.params, 'path');
        await deps.control.hold(user, id, held);
        return { success: true, held };
      });
    }

    app.post('/api/v1/calls/conferencelead', async (request) => {
      const { user } = sessionOf(request);
      const body = parseWith(ConferenceLeadBody, request.body);
      const { call, lead, outcome, message } = await deps.control.addLead(user, body);
      // The added lead's phone decides: answered joins the call; otherwise the call goes on
      // without it and the console shows why.
      return {
        success: outcome === 'answered',
        outcome,
        ...(message ? { error: message } : {}),
        call: await toCallResource(deps.db, call),
        lead: toLeadResource(lead),
      };
    });
  };
}
