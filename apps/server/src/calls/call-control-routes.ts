/** Call control: conference, transfer, listen / whisper / barge, hold / unhold, add lead. */
import type { FastifyInstance } from 'fastify';
import {
  ConferenceBody,
  ConferenceLeadBody,
  ConferenceLeadResponseSchema,
  HoldResponseSchema,
  IdParams,
  RefusalSchema,
  SuccessResponseSchema,
  TransferBody,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { PERMISSION, requirePermission } from '../auth/permissions';
import type { Db } from '../db/database';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import { toLeadResource } from '../leads/leads-repo';
import type { CallControl, SuperviseMode } from './call-control';
import { toCallResource } from './call-resource-repo';

const SUPERVISE_MODES: SuperviseMode[] = ['listen', 'whisper', 'barge'];

const TAGS = ['Call control'];
/** A refusal of the call's or an agent's state. */
const CONFLICT = RefusalSchema.describe('The call or an agent is not in a state that allows it');

/** What each supervision mode does, for the API document. */
const SUPERVISE_DOCS: Record<SuperviseMode, string> = {
  listen: 'listens to call `{id}`',
  whisper: 'whispers to the agent of call `{id}`',
  barge: 'barges into call `{id}`',
};
const SUPERVISE_HEARD: Record<SuperviseMode, string> = {
  listen: 'The supervisor hears everyone and is heard by no one.',
  whisper: 'Heard by the agent only, never by the lead.',
  barge: 'Heard by everyone.',
};

/** Routes of call control. */
export function callControlRoutes(deps: { db: Db; control: CallControl }) {
  return async (app: FastifyInstance): Promise<void> => {
    const conference = {
      summary: 'Adds an agent to the user’s live call',
      description:
        "Adds an agent to the user's live call; the agent is rung (\"Incoming Conference!\"). The target must be available and online in the app or on mobile (409 `{ success: false, error: 'This agent is not available.' }`); 409 when the user is on no call.",
      tags: TAGS,
      body: ConferenceBody,
      response: { 200: SuccessResponseSchema, 409: CONFLICT },
    } satisfies RouteDocs;
    app.post('/api/v1/calls/conference', { schema: conference }, async (request) => {
      const { user } = sessionOf(request);
      const body = parseRequest(request, 'body', conference.body);
      await deps.control.conference(user, body.user_id);
      return { success: true };
    });

    const transfer = {
      summary: 'Transfers the call to an agent or a team',
      description:
        '`{ user_id, call_user_id }` or `{ team_id, call_user_id }` (the caller\'s own call user of call `{id}`): rings the agent (or the longest-idle transferable member of the team) with "Incoming Transfer!"; when they answer they take over and the caller leaves. A target agent must be free (not on a call, not being rung for one, not wrapping up), available, and online: in the app, or on mobile unless the agent is app-only; otherwise 409 "This agent is not available." (Spec section 6 asks only an app-only agent to be online; Leadline rings an agent only where they are signed in, so an offline agent cannot take the call.) A team\'s members are offered the call only if they qualify the same way.',
      tags: TAGS,
      params: IdParams,
      body: TransferBody,
      response: { 200: SuccessResponseSchema, 409: CONFLICT },
    } satisfies RouteDocs;
    app.post('/api/v1/calls/:id/transfer', { schema: transfer }, async (request) => {
      const { user } = sessionOf(request);
      const { id } = parseRequest(request, 'params', transfer.params);
      const body = parseRequest(request, 'body', transfer.body);
      await deps.control.transfer(user, id, body);
      return { success: true };
    });

    for (const mode of SUPERVISE_MODES) {
      const supervise = {
        summary: `A supervisor ${mode === 'barge' ? 'barges into' : `${mode}s to`} a call`,
        description: `A supervisor ${SUPERVISE_DOCS[mode]} (an agent's \`on_call_id\`): the supervisor is rung (auto-answered, type \`${mode}\`); already in the call, the mode changes. ${SUPERVISE_HEARD[mode]} Permission \`${PERMISSION[mode]}\` (403 without it).`,
        tags: TAGS,
        params: IdParams,
        response: { 200: SuccessResponseSchema, 403: RefusalSchema, 409: CONFLICT },
      } satisfies RouteDocs;
      app.post(`/api/v1/calls/:id/${mode}`, { schema: supervise }, async (request) => {
        const { user } = sessionOf(request);
        requirePermission(
          user,
          PERMISSION[mode],
          `${mode} ${mode === 'barge' ? 'into' : 'to'} calls`,
        );
        const { id } = parseRequest(request, 'params', supervise.params);
        await deps.control.supervise(user, id, mode);
        return { success: true };
      });
    }

    for (const [path, held] of [
      ['hold', true],
      ['unhold', false],
    ] as const) {
      const hold = {
        summary: held ? 'Puts the lead on hold' : 'Takes the lead off hold',
        description: held
          ? "Not shown in the spec: puts the lead of the user's call `{id}` on hold (the lead hears hold music; agents and lead stop hearing each other). 409 when the user is not on that call."
          : 'Takes the lead off hold.',
        tags: TAGS,
        params: IdParams,
        response: { 200: HoldResponseSchema, 409: CONFLICT },
      } satisfies RouteDocs;
      app.put(`/api/v1/calls/:id/${path}`, { schema: hold }, async (request) => {
        const { user } = sessionOf(request);
        const { id } = parseRequest(request, 'params', hold.params);
        await deps.control.hold(user, id, held);
        return { success: true, held };
      });
    }

    const addLead = {
      summary: 'Add Lead: gives a call without a lead one and dials it in',
      description:
        "The Add Lead panel: gives the user's live call `call_id` (which has no lead yet; 409 otherwise) a lead, dials it into the call from the call's caller number, and answers once its phone answered (`success: true, outcome: 'answered'`) or did not (`success: false`, `outcome` busy / no-answer / failed / timeout, `error` saying so): the call goes on either way. The dial guard (see Dialling rules in docs/api.md) may refuse the number first (403, 409, 429 with its sentence): no lead is added, nothing dialled.",
      tags: TAGS,
      body: ConferenceLeadBody,
      response: {
        200: ConferenceLeadResponseSchema,
        403: RefusalSchema,
        409: CONFLICT,
        429: RefusalSchema,
      },
    } satisfies RouteDocs;
    app.post('/api/v1/calls/conferencelead', { schema: addLead }, async (request) => {
      const { user } = sessionOf(request);
      const body = parseRequest(request, 'body', addLead.body);
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
