/**
 * The console's call endpoints: the call user, Ignore, the dispositions, notes, SMS,
 * 'Check for lead' and the WebRTC debug report.
 */
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import {
  DebugWebrtcBody,
  Disposition2Body,
  DispositionBody,
  IdParams,
  NoteBody,
  SmsBody,
  type CallUserResponse,
  type PresenceStatus,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db } from '../db/database';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import type { SmsService } from '../sms/sms-sender';
import { findCallerNumber, defaultCallerNumber } from '../users/caller-numbers-repo';
import { requireAccountCall } from './account-call';
import { NOBODY_MESSAGES, type CallFlows } from './call-flows';
import {
  findUserCallUser,
  insertNote,
  profileTagKeys,
  setDisposition,
  toCallResource,
  updateCall,
} from './calls-repo';

/** Why an agent who asked for a waiting lead cannot take it, by where they are. */
const CHECK_REFUSALS: Record<PresenceStatus, string | null> = {
  available: null,
  away: 'You are Away: set yourself Available to take a lead.',
  on_call: 'You are on a call.',
  wrap_up: null,
  offline: 'Your phone is not connected: open the console first.',
};

/** Routes of the console's calls. */
export function callsRoutes(deps: { db: Db; flows: CallFlows; sms: SmsService }) {
  return async (app: FastifyInstance): Promise<void> => {
    /** A call of the session's account by the path's id (404 for anything else). */
    const accountCall = async (accountId: number, params: unknown) => {
      const { id } = parseWith(IdParams, params, 'path');
      return requireAccountCall(deps.db, accountId, id);
    };

    // Recordings are sent as files (ranges, so the history's player can seek); no route serves a
    // folder: the only path sent is the one the engine reported for a call of the account.
    await app.register(fastifyStatic, { root: process.cwd(), serve: false });

    app.get('/api/v1/calls/:id/recording', async (request, reply) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      const path = call.recordingPath;
      if (!path || !existsSync(path)) throw new AppError('NOT_FOUND', 'Recording not found.');
      return reply
        .header('cache-control', 'private, max-age=3600')
        .header('content-disposition', `inline; filename="call-${call.id}.wav"`)
        .sendFile(basename(path), dirname(path));
    });

    app.get('/api/v1/callusers/:id', async (request): Promise<CallUserResponse> => {
      const { user } = sessionOf(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const found = await findUserCallUser(deps.db, user.id, id);
      if (!found) throw new AppError('NOT_FOUND', 'Call user not found.');
      return {
        call: await toCallResource(deps.db, found.call, deps.flows.now()),
        type: found.callUser.type,
        autoaccept: found.callUser.autoaccept,
      };
    });

    app.post('/apps/webrtc/:id/reject', async (request) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      // What became of the call: rung to the next agent, waiting, or ended.
      const after = await deps.flows.agentIgnored(call, user.id);
      return { success: true, call: { id: after.id, status: after.status } };
    });

    app.post('/apps/webrtc/:id/disposition', async (request) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      const body = parseWith(DispositionBody, request.body);
      await setDisposition(deps.db, call.id, body.status);
      return { success: true };
    });

    app.post('/apps/webrtc/:id/disposition2', async (request) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      const body = parseWith(Disposition2Body, request.body);
      const keys = call.profileId === null ? [] : await profileTagKeys(deps.db, call.profileId);
      if (!keys.includes(body.key)) {
        throw new AppError('VALIDATION_FAILED', "The key is not a tag of this call's profile.");
      }
      await updateCall(deps.db, call.id, { stageKey: body.key });
      return { success: true };
    });

    app.post('/api/v1/notes', async (request, reply) => {
      const { user } = sessionOf(request);
      const body = parseWith(NoteBody, request.body);
      const call = await requireAccountCall(deps.db, user.accountId, body.call_id);
      const note = await insertNote(deps.db, {
        accountId: user.accountId,
        callId: call.id,
        userId: user.id,
        content: body.content,
      });
      return reply.status(201).send({ success: true, note: { id: note.id } });
    });

    app.post('/apps/webrtc/:id/sms', async (request) => {
      const { user } = sessionOf(request);
      requirePermission(user, PERMISSION.sms, 'send an SMS');
      const call = await accountCall(user.accountId, request.params);
      const body = parseWith(SmsBody, request.body);
      if (!call.phoneNumber) throw new AppError('NO_PHONE_NUMBER');
      const from =
        (call.callerNumberId === null
          ? null
          : await findCallerNumber(deps.db, user.accountId, call.callerNumberId)) ??
        (await defaultCallerNumber(deps.db, user.accountId, call.profileId));
      const sent = await deps.sms.send(
        { accountId: user.accountId, callId: call.id, userId: user.id },
        { from: from?.phoneNumber ?? null, to: call.phoneNumber, body: body.smsbody },
      );
      return sent.ok ? { success: true } : { success: false, error: sent.error };
    });

    app.post('/apps/webrtc/check', async (request) => {
      const { user } = sessionOf(request);
      const found = await deps.flows.checkForLead(user);
      if (!found) return { success: false, error: 'No leads waiting.' };
      const { call, outcome } = found;
      if (outcome.kind !== 'rang') {
        // A lead waits, but this agent cannot take it now: say why, in their terms.
        const presence = await deps.flows.presence.refresh(user.id);
        const error = presence ? CHECK_REFUSALS[presence.status] : null;
        return {
          success: false,
          error: error ?? NOBODY_MESSAGES[outcome.reason],
          call: { id: call.id },
        };
      }
      return { success: true, call: { id: call.id, status: call.status } };
    });

    app.post('/twilio/debug/webrtc', async (request) => {
      const { user } = sessionOf(request);
      const body = parseWith(DebugWebrtcBody, request.body ?? {});
      request.log.warn(
        { userId: user.id, reportedUser: body.user, connStatus: body.conn_status },
        'softphone disconnected without a clean close',
      );
      return { success: true };
    });
  };
}
