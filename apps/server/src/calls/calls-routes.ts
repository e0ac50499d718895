/**
 * The console's call endpoints: the call user, Ignore, the dispositions, notes, SMS,
 * 'Check for lead' and the WebRTC debug report.
 */
import { basename, dirname } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
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
import type { Db, DbOrTx } from '../db/database';
import { AppError } from '../http/errors';
import { Idempotency, type StoredAnswer } from '../http/idempotency';
import { parseWith } from '../http/validate';
import type { SmsService } from '../sms/sms-sender';
import { findCallerNumber, defaultCallerNumber } from '../users/caller-numbers-repo';
import { requireAccountCall } from './account-call';
import { mayHearRecording, RECORDING_NOT_YOURS, recordingFileUnder } from './recording-access';
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

/** The final answer of an SMS whose send was interrupted (its server stopped mid-send). */
const SMS_INTERRUPTED: StoredAnswer = {
  statusCode: 200,
  body: { success: false, error: 'Sending was interrupted; the SMS may not have been sent.' },
};

/**
 * Routes of the console's calls. The dispositions, notes and SMS take an `Idempotency-Key`
 * (`http/idempotency.ts`): the console's outbox repeats them until it gets an answer.
 */
/** Recordings kept by the telephony provider (Twilio's), fetched when a user plays one. */
export interface RemoteRecordings {
  /** Whether the stored recording `url` is one this fetcher serves. */
  owns(url: string): boolean;
  /** The recording; `range` is the player's `Range` header. */
  fetch(url: string, range?: string): Promise<Response>;
}

/** Headers of a provider's recording answer passed on to the player. */
const RECORDING_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges'];

export function callsRoutes(deps: {
  db: Db;
  flows: CallFlows;
  sms: SmsService;
  recordings?: RemoteRecordings | undefined;
  /**
   * The folder local recordings are served from (the data folder): a recording file elsewhere is
   * never sent. Unset (Twilio): no local file is.
   */
  recordingsRoot?: string | undefined;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    /** A call of the session's account by the path's id (404 for anything else). */
    const accountCall = async (accountId: number, params: unknown, db: DbOrTx = deps.db) => {
      const { id } = parseWith(IdParams, params, 'path');
      return requireAccountCall(db, accountId, id);
    };
    const idempotency = new Idempotency({ db: deps.db, now: () => deps.flows.now() });

    // Recordings are sent as files (ranges, so the history's player can seek); no route serves a
    // folder: the only path sent is the one the engine reported for a call of the account, and
    // only when it is a file under the data folder (`recording-access.ts`).
    await app.register(fastifyStatic, { root: process.cwd(), serve: false });

    app.get('/api/v1/calls/:id/recording', async (request, reply) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request.params);
      if (!(await mayHearRecording(deps.db, user, call))) {
        throw new AppError('FORBIDDEN', RECORDING_NOT_YOURS);
      }
      const path = call.recordingPath;
      const remote = path && deps.recordings?.owns(path) ? deps.recordings : undefined;
      if (remote && path) {
        const range = request.headers.range;
        const fetched = await remote.fetch(path, range).catch(() => null);
        if (!fetched || (fetched.status !== 200 && fetched.status !== 206) || !fetched.body) {
          await fetched?.body?.cancel();
          // Deleted at Twilio: as gone as a file that is not there.
          if (fetched?.status === 404) throw new AppError('NOT_FOUND', 'Recording not found.');
          throw new AppError(
            'CALL_SERVICE_UNREACHABLE',
            'The recording cannot be fetched just now.',
          );
        }
        reply.code(fetched.status);
        for (const name of RECORDING_HEADERS) {
          const value = fetched.headers.get(name);
          if (value !== null) reply.header(name, value);
        }
        return (
          reply
            .header('cache-control', 'private, max-age=3600')
            .header('content-disposition', `inline; filename="call-${call.id}.wav"`)
            // fetch's body is the DOM's ReadableStream where the DOM library is loaded too (the
            // e2e and bench projects compile this file): the assertion is needed there only.
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
            .send(Readable.fromWeb(fetched.body as unknown as NodeReadableStream))
        );
      }
      // With the provider's recordings, never a local file, whatever the row says.
      const file =
        path && !deps.recordings ? await recordingFileUnder(deps.recordingsRoot, path) : null;
      if (!file) throw new AppError('NOT_FOUND', 'Recording not found.');
      return reply
        .header('cache-control', 'private, max-age=3600')
        .header('content-disposition', `inline; filename="call-${call.id}.wav"`)
        .sendFile(basename(file), dirname(file));
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

    app.post('/apps/webrtc/:id/disposition', (request, reply) =>
      idempotency.transactional(request, reply, async (db) => {
        const { user } = sessionOf(request);
        const call = await accountCall(user.accountId, request.params, db);
        const body = parseWith(DispositionBody, request.body);
        await setDisposition(db, call.id, body.status);
        return { statusCode: 200, body: { success: true } };
      }),
    );

    app.post('/apps/webrtc/:id/disposition2', (request, reply) =>
      idempotency.transactional(request, reply, async (db) => {
        const { user } = sessionOf(request);
        const call = await accountCall(user.accountId, request.params, db);
        const body = parseWith(Disposition2Body, request.body);
        const keys = call.profileId === null ? [] : await profileTagKeys(db, call.profileId);
        if (!keys.includes(body.key)) {
          throw new AppError('VALIDATION_FAILED', "The key is not a tag of this call's profile.");
        }
        await updateCall(db, call.id, { stageKey: body.key });
        return { statusCode: 200, body: { success: true } };
      }),
    );

    app.post('/api/v1/notes', (request, reply) =>
      idempotency.transactional(request, reply, async (db) => {
        const { user } = sessionOf(request);
        const body = parseWith(NoteBody, request.body);
        const call = await requireAccountCall(db, user.accountId, body.call_id);
        const note = await insertNote(db, {
          accountId: user.accountId,
          callId: call.id,
          userId: user.id,
          content: body.content,
        });
        return { statusCode: 201, body: { success: true, note: { id: note.id } } };
      }),
    );

    app.post('/apps/webrtc/:id/sms', (request, reply) =>
      idempotency.external(request, reply, {
        interrupted: SMS_INTERRUPTED,
        prepare: async () => {
          const { user } = sessionOf(request);
          requirePermission(user, PERMISSION.sms, 'send an SMS');
          const call = await accountCall(user.accountId, request.params);
          const body = parseWith(SmsBody, request.body);
          const to = call.phoneNumber;
          if (!to) throw new AppError('NO_PHONE_NUMBER');
          const from =
            (call.callerNumberId === null
              ? null
              : await findCallerNumber(deps.db, user.accountId, call.callerNumberId)) ??
            (await defaultCallerNumber(deps.db, user.accountId, call.profileId));
          const message = { from: from?.phoneNumber ?? null, to, body: body.smsbody };
          // The toll-fraud guard: where to, from the account's own number, the SMS limits; the
          // message is stored (counted) before it is sent.
          const id = await deps.flows.dialGuard.admit(
            user,
            { kind: 'text', to, from: message.from },
            (tx) =>
              deps.sms.reserve(
                tx,
                { accountId: user.accountId, callId: call.id, userId: user.id },
                message,
              ),
          );
          return async () => {
            const sent = await deps.sms.deliver(id, message);
            return {
              statusCode: 200,
              body: sent.ok ? { success: true } : { success: false, error: sent.error },
            };
          };
        },
      }),
    );

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
