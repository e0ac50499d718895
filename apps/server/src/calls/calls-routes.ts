/**
 * The console's call endpoints: the call user, Ignore, the dispositions, notes, SMS,
 * 'Check for lead' and the WebRTC debug report.
 */
import { basename, dirname } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import {
  CallUserResponseSchema,
  CheckForLeadResponseSchema,
  DebugWebrtcBody,
  Disposition2Body,
  DispositionBody,
  ErrorResponseSchema,
  IdParams,
  NoteBody,
  NoteResponseSchema,
  RefusalSchema,
  RejectResponseSchema,
  SmsBody,
  SmsResponseSchema,
  SuccessResponseSchema,
  type CallUserResponse,
  type PresenceStatus,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db, DbOrTx } from '../db/database';
import { AppError } from '../http/errors';
import { Idempotency, type StoredAnswer } from '../http/idempotency';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import type { SmsService } from '../sms/sms-sender';
import { findCallerNumber, defaultCallerNumber } from '../users/caller-numbers-repo';
import { requireAccountCall } from './account-call';
import {
  mayHearRecording,
  RECORDING_NOT_YOURS,
  recordingFileUnder,
  type RemoteRecordings,
} from './recording-access';
import { NOBODY_MESSAGES, type CallFlows } from './call-flows';
import {
  findUserCallUser,
  insertNote,
  profileTagKeys,
  setDisposition,
  updateCall,
} from './calls-repo';
import { toCallResource } from './call-resource-repo';

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
const TAGS = ['Calls'];
/** A recording's answer. */
const WAV = {
  description: 'The recording',
  content: { 'audio/wav': { schema: { type: 'string', contentMediaType: 'audio/wav' } } },
};

/** Headers of a provider's recording answer passed on to the player. */
const RECORDING_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges'];

export function callsRoutes(deps: {
  db: Db;
  flows: CallFlows;
  sms: SmsService;
  recordings?: RemoteRecordings | undefined;
  /**
   * The folder local recordings are served from (`DATA_DIR/recordings`): a recording file
   * elsewhere, the rest of the data folder included, is never sent. Unset (Twilio): no local
   * file is.
   */
  recordingsRoot?: string | undefined;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    /** A call of the session's account by the path's id (404 for anything else). */
    const accountCall = async (
      accountId: number,
      request: FastifyRequest,
      db: DbOrTx = deps.db,
    ) => {
      const { id } = parseRequest(request, 'params', IdParams);
      return requireAccountCall(db, accountId, id);
    };
    const idempotency = new Idempotency({ db: deps.db, now: () => deps.flows.now() });

    // Recordings are sent as files (ranges, so the history's player can seek); no route serves a
    // folder: the only path sent is the one the engine reported for a call of the account, and
    // only when it is a file under the recordings folder (`recording-access.ts`).
    await app.register(fastifyStatic, { root: process.cwd(), serve: false });

    const recording = {
      summary: 'A call’s recording (WAV)',
      description:
        "The call's recording (both parties mixed, WAV), the `recording_url` of its history row once the engine has written it. Its agent and the users who joined the call may listen, and supervisors (listen, whisper or barge) every call of the account; anyone else of the account gets 403 `{ success: false, error: 'You can play only the recordings of calls you took part in.' }` (and their history shows no `recording_url` for it). Range requests are answered 206 so a player can seek. 404 `{ error: 'Recording not found.' }` while there is none, for another account's call, and for a file that is not under the recordings folder (`DATA_DIR/recordings`: never the data folder's secrets, TLS key or database files); with Twilio the recording is streamed from Twilio and no local file is ever sent.",
      tags: TAGS,
      params: IdParams,
      response: {
        200: WAV,
        206: { ...WAV, description: 'The range asked for (`Range`)' },
        403: RefusalSchema,
        404: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    app.get('/api/v1/calls/:id/recording', { schema: recording }, async (request, reply) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request);
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

    const callUser = {
      summary: 'The call behind an incoming ring',
      description:
        "The call behind an incoming ring: the console strips `client:` from the ring's `From` and loads this. Another user's call user is 404.",
      tags: TAGS,
      params: IdParams,
      response: { 200: CallUserResponseSchema, 404: ErrorResponseSchema },
    } satisfies RouteDocs;
    const callUserRoute = { schema: callUser };
    app.get('/api/v1/callusers/:id', callUserRoute, async (request): Promise<CallUserResponse> => {
      const { user } = sessionOf(request);
      const { id } = parseRequest(request, 'params', callUser.params);
      const found = await findUserCallUser(deps.db, user.id, id);
      if (!found) throw new AppError('NOT_FOUND', 'Call user not found.');
      return {
        call: await toCallResource(deps.db, found.call, deps.flows.now()),
        type: found.callUser.type,
        autoaccept: found.callUser.autoaccept,
      };
    });

    const reject = {
      summary: 'Ignore: stop ringing the user for this call',
      description:
        'The Ignore button: the user stops being rung for call `{id}` and the call moves on: to the next eligible agent, back to the queue, or, when everyone was tried, `missed` (`No agents answered`). The answer says where it went (`call.status`). 409 `This call is not ringing for you.` when it does not ring for the user.',
      tags: TAGS,
      params: IdParams,
      response: { 200: RejectResponseSchema, 409: RefusalSchema },
    } satisfies RouteDocs;
    app.post('/apps/webrtc/:id/reject', { schema: reject }, async (request) => {
      const { user } = sessionOf(request);
      const call = await accountCall(user.accountId, request);
      // What became of the call: rung to the next agent, waiting, or ended.
      const after = await deps.flows.agentIgnored(call, user.id);
      return { success: true, call: { id: after.id, status: after.status } };
    });

    const disposition = {
      summary: 'Records the Call Result',
      description:
        'Records the Call Result of call `{id}`: `status` contacted, voicemail, missed or removed. Takes an `Idempotency-Key` (see Idempotency keys in docs/api.md).',
      tags: TAGS,
      params: IdParams,
      body: DispositionBody,
      response: { 200: SuccessResponseSchema },
    } satisfies RouteDocs;
    app.post('/apps/webrtc/:id/disposition', { schema: disposition }, (request, reply) =>
      idempotency.transactional(request, reply, async (db) => {
        const { user } = sessionOf(request);
        const call = await accountCall(user.accountId, request, db);
        const body = parseRequest(request, 'body', disposition.body);
        await setDisposition(db, call.id, body.status);
        return { statusCode: 200, body: { success: true } };
      }),
    );

    const disposition2 = {
      summary: 'Records the Tags & Stages choice',
      description:
        "Records the Tags & Stages choice: `key` must be a tag of the call's profile (422 otherwise). Takes an `Idempotency-Key` (see Idempotency keys in docs/api.md).",
      tags: TAGS,
      params: IdParams,
      body: Disposition2Body,
      response: { 200: SuccessResponseSchema },
    } satisfies RouteDocs;
    app.post('/apps/webrtc/:id/disposition2', { schema: disposition2 }, (request, reply) =>
      idempotency.transactional(request, reply, async (db) => {
        const { user } = sessionOf(request);
        const call = await accountCall(user.accountId, request, db);
        const body = parseRequest(request, 'body', disposition2.body);
        const keys = call.profileId === null ? [] : await profileTagKeys(db, call.profileId);
        if (!keys.includes(body.key)) {
          throw new AppError('VALIDATION_FAILED', "The key is not a tag of this call's profile.");
        }
        await updateCall(db, call.id, { stageKey: body.key });
        return { statusCode: 200, body: { success: true } };
      }),
    );

    const addNote = {
      summary: 'Adds a note to a call',
      description:
        'Adds a note to a call of the account (201). Takes an `Idempotency-Key` (see Idempotency keys in docs/api.md).',
      tags: TAGS,
      body: NoteBody,
      response: { 201: NoteResponseSchema, 404: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.post('/api/v1/notes', { schema: addNote }, (request, reply) =>
      idempotency.transactional(request, reply, async (db) => {
        const { user } = sessionOf(request);
        const body = parseRequest(request, 'body', addNote.body);
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

    const sms = {
      summary: 'Sends the SMS follow-up to the call’s number',
      description:
        "Sends the SMS follow-up to the call's number from the call's caller number, through the SMS sender (embedded: the sandbox outbox, `GET /api/v1/sandbox/sms`). `success` means the sender took it; a refusal comes back as `{ success: false, error }` (e.g. a number that cannot receive texts). `smsbody` 1–1600 characters; the console's default text is \"Sorry we couldn't reach you!\". Permission `app-sms`. Takes an `Idempotency-Key` (see Idempotency keys in docs/api.md). The dial guard (see Dialling rules) refuses a number the account may not text (403 'Texts to premium-rate numbers are not allowed.', 'Texts to Russia are not allowed for this account.'), the SMS limits (429: the console's outbox sends it again once the limit allows) and, with Twilio, an account without a caller number of its own (403); nothing is sent or stored then.",
      tags: TAGS,
      params: IdParams,
      body: SmsBody,
      response: { 200: SmsResponseSchema, 403: RefusalSchema, 429: RefusalSchema },
    } satisfies RouteDocs;
    app.post('/apps/webrtc/:id/sms', { schema: sms }, (request, reply) =>
      idempotency.external(request, reply, {
        interrupted: SMS_INTERRUPTED,
        prepare: async () => {
          const { user } = sessionOf(request);
          requirePermission(user, PERMISSION.sms, 'send an SMS');
          const call = await accountCall(user.accountId, request);
          const body = parseRequest(request, 'body', sms.body);
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

    const check = {
      summary: 'Check for lead: rings the user with the oldest waiting lead',
      description:
        "Not shown in the spec: \"Check for lead\". Ends the user's wrap-up and rings them with the oldest web lead waiting in the queue for their teams (`{ success: true, call }`); `{ success: false, error: 'No leads waiting.' }` when none waits, and a lead waits that this user cannot take now: why, with `call` naming it.",
      tags: TAGS,
      response: { 200: CheckForLeadResponseSchema },
    } satisfies RouteDocs;
    app.post('/apps/webrtc/check', { schema: check }, async (request) => {
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

    const debug = {
      summary: 'The console reports a softphone disconnect',
      description:
        'The console reports a softphone disconnect that was not a clean close; logged at warn level. The body may be absent.',
      tags: TAGS,
      body: DebugWebrtcBody,
      response: { 200: SuccessResponseSchema },
    } satisfies RouteDocs;
    app.post('/twilio/debug/webrtc', { schema: debug }, async (request) => {
      const { user } = sessionOf(request);
      const body = parseRequest(request, 'body', debug.body, {});
      request.log.warn(
        { userId: user.id, reportedUser: body.user, connStatus: body.conn_status },
        'softphone disconnected without a clean close',
      );
      return { success: true };
    });
  };
}
