/**
 * Admin routes of profiles and their tags, caller numbers and API keys (issue 37). Each handler
 * checks the admin first (401 without a session, 403 for anyone but an admin; CSRF on writes),
 * parses with the contracts' schemas it declares for the API document (422 with a sentence),
 * calls the service (which writes and audits in one transaction) and then announces the change,
 * so every instance drops what it remembers (routing settings, API keys) and the change applies
 * to the next lead at once.
 *
 * POSTs answer 201 `{ data }`; PATCH 200 `{ data }`; DELETE 200 `{ data: { id } }`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AdminApiKeyBody,
  AdminApiKeyCreatedSchema,
  AdminApiKeyListSchema,
  AdminAvailableNumbersSchema,
  AdminCallerNumberBody,
  AdminCallerNumberCreatedSchema,
  AdminCallerNumberListSchema,
  AdminCallerNumberUpdateBody,
  AdminListQuery,
  AdminProfileCreateBody,
  AdminProfileCreatedSchema,
  AdminProfileListSchema,
  AdminProfileUpdateBody,
  ErrorResponseSchema,
  IdParams,
  RefusalSchema,
} from '@leadline/contracts';
import type { CommonServices } from '../http/route-services';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import { adminChangesOf, type AdminChangeKind } from './admin-changes';
import { requireAdmin, type AdminActor } from './admin-guard';
import { createApiKey, deleteApiKey, listApiKeys } from './admin-api-keys';
import {
  availableNumbers,
  createCallerNumber,
  deleteCallerNumber,
  listCallerNumbers,
  updateCallerNumber,
} from './admin-caller-numbers';
import { createProfile, listProfiles, updateProfile } from './admin-profiles';
import { ANY_NUMBER } from './number-inventory';

const TAGS = ['Administration'];

/** What a DELETE answers: the id of what was deleted. */
const DeletedSchema = z.strictObject({ data: z.strictObject({ id: z.int() }) });

/** The answers every admin route can give besides its own. */
const ADMIN_ONLY = { 403: ErrorResponseSchema };

/** Registers them. */
export function catalogAdminRoutes(deps: CommonServices) {
  return async (app: FastifyInstance): Promise<void> => {
    const { db } = deps;
    const inventory = deps.numbers ?? ANY_NUMBER;
    const changes = adminChangesOf(deps);
    const announce = (admin: AdminActor, what: AdminChangeKind) =>
      changes.announce({ accountId: admin.accountId, what });
    const actorOf = (admin: AdminActor) => ({ userId: admin.userId });

    // ---------------------------------------------------------------- profiles

    const listProfilesDocs = {
      summary: "Admin: the account's profiles",
      description:
        'A page of 25 profiles by name (`search`: part of the name), each with its tags in their order. Admins only.',
      tags: TAGS,
      querystring: AdminListQuery,
      response: { 200: AdminProfileListSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/profiles', { schema: listProfilesDocs }, async (request) => {
      const admin = requireAdmin(request);
      const query = parseRequest(request, 'querystring', listProfilesDocs.querystring);
      return listProfiles(db, admin.accountId, query);
    });

    const createProfileDocs = {
      summary: 'Admin: makes a profile with its tags',
      description:
        "A profile (the routing settings and Tags & Stages of its leads' calls): `tags` in the order the console shows them; a tag colour on which neither dark nor light text reaches 4.5:1 is refused with a sentence. `ring_timeout_seconds` 5–120 (none: the server's), `team_id` one of the account's teams (none: every agent), `hours` its weekly opening hours in a time zone (none: always open; a day left out is closed). 409 'A profile with this name already exists.' (names are unique without regard to case). Audited as `profile.create`.",
      tags: TAGS,
      body: AdminProfileCreateBody,
      response: { 201: AdminProfileCreatedSchema, ...ADMIN_ONLY, 409: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.post('/api/v1/admin/profiles', { schema: createProfileDocs }, async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseRequest(request, 'body', createProfileDocs.body);
      const data = await createProfile(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'profiles');
      return reply.status(201).send({ data });
    });

    const updateProfileDocs = {
      summary: 'Admin: changes a profile',
      description:
        "The fields given change; `tags` replaces the list in the order given (a tag whose key stays keeps its identity, so calls' stages keep naming it). `null` clears the ring timeout, team or hours. The next lead uses the change on every instance. Another account's profile is 404. Audited as `profile.update` with what changed.",
      tags: TAGS,
      params: IdParams,
      body: AdminProfileUpdateBody,
      response: {
        200: AdminProfileCreatedSchema,
        ...ADMIN_ONLY,
        404: ErrorResponseSchema,
        409: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    app.patch('/api/v1/admin/profiles/:id', { schema: updateProfileDocs }, async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseRequest(request, 'params', updateProfileDocs.params);
      const body = parseRequest(request, 'body', updateProfileDocs.body);
      const data = await updateProfile(db, actorOf(admin), admin.accountId, id, body);
      await announce(admin, 'profiles');
      return { data };
    });

    // ---------------------------------------------------------------- caller numbers

    const listNumbersDocs = {
      summary: "Admin: the account's caller numbers",
      description:
        'A page of 25 caller numbers by name (`search`: part of the name or of the number). Admins only.',
      tags: TAGS,
      querystring: AdminListQuery,
      response: { 200: AdminCallerNumberListSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/caller-numbers', { schema: listNumbersDocs }, async (request) => {
      const admin = requireAdmin(request);
      const query = parseRequest(request, 'querystring', listNumbersDocs.querystring);
      return listCallerNumbers(db, admin.accountId, query);
    });

    const availableDocs = {
      summary: 'Admin: the numbers the account may make caller numbers of',
      description:
        "With Twilio: the numbers the operator assigned to this account (`npm run admin -- assign-number`) that the Twilio account holds (IncomingPhoneNumbers, read now), `in_use` when already one of this account's caller numbers; no other account's number, and no number assigned to none, is ever listed; `provider_checked: true`. With the embedded engine any number may be a caller number: an empty list, `provider_checked: false`. 503 when Twilio cannot be asked.",
      tags: TAGS,
      response: { 200: AdminAvailableNumbersSchema, ...ADMIN_ONLY, 503: RefusalSchema },
    } satisfies RouteDocs;
    app.get(
      '/api/v1/admin/caller-numbers/available',
      { schema: availableDocs },
      async (request) => {
        const admin = requireAdmin(request);
        return availableNumbers(db, admin.accountId, inventory);
      },
    );

    const createNumberDocs = {
      summary: 'Admin: adds a caller number',
      description:
        "A number the account's calls go out from and inbound calls come in on, in E.164 (other spellings of a valid number are accepted and stored as E.164), optionally of one of the account's profiles. 409 'This number is already a caller number.' (of any account). With Twilio only a number the operator assigned to this account: 422 'This number is not assigned to your account: ask your Leadline operator to assign it to you.' for any other (the same whether another account has it or none does), and 422 'This number is not one of your Twilio account's numbers.' for an assigned one Twilio no longer holds. Audited as `caller_number.create`.",
      tags: TAGS,
      body: AdminCallerNumberBody,
      response: {
        201: AdminCallerNumberCreatedSchema,
        ...ADMIN_ONLY,
        409: ErrorResponseSchema,
        503: RefusalSchema,
      },
    } satisfies RouteDocs;
    app.post(
      '/api/v1/admin/caller-numbers',
      { schema: createNumberDocs },
      async (request, reply) => {
        const admin = requireAdmin(request);
        const body = parseRequest(request, 'body', createNumberDocs.body);
        const data = await createCallerNumber(db, actorOf(admin), admin.accountId, body, inventory);
        await announce(admin, 'caller-numbers');
        return reply.status(201).send({ data });
      },
    );

    const updateNumberDocs = {
      summary: 'Admin: changes a caller number',
      description:
        "The fields given change, checked as on create. Another account's number is 404. Audited as `caller_number.update`.",
      tags: TAGS,
      params: IdParams,
      body: AdminCallerNumberUpdateBody,
      response: {
        200: AdminCallerNumberCreatedSchema,
        ...ADMIN_ONLY,
        404: ErrorResponseSchema,
        409: ErrorResponseSchema,
        503: RefusalSchema,
      },
    } satisfies RouteDocs;
    app.patch('/api/v1/admin/caller-numbers/:id', { schema: updateNumberDocs }, async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseRequest(request, 'params', updateNumberDocs.params);
      const body = parseRequest(request, 'body', updateNumberDocs.body);
      const data = await updateCallerNumber(
        db,
        actorOf(admin),
        admin.accountId,
        id,
        body,
        inventory,
      );
      await announce(admin, 'caller-numbers');
      return { data };
    });

    const deleteNumberDocs = {
      summary: 'Admin: removes a caller number',
      description:
        "Removes a caller number no call went out from or came in on. One that past calls used stays, since their history names it: 409 'This number was used by past calls and stays in their history: rename it or move it to another profile instead.' Another account's number is 404. Audited as `caller_number.delete`.",
      tags: TAGS,
      params: IdParams,
      response: {
        200: DeletedSchema,
        ...ADMIN_ONLY,
        404: ErrorResponseSchema,
        409: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    app.delete(
      '/api/v1/admin/caller-numbers/:id',
      { schema: deleteNumberDocs },
      async (request) => {
        const admin = requireAdmin(request);
        const { id } = parseRequest(request, 'params', deleteNumberDocs.params);
        const data = await deleteCallerNumber(db, actorOf(admin), admin.accountId, id);
        await announce(admin, 'caller-numbers');
        return { data };
      },
    );

    // ---------------------------------------------------------------- API keys

    const listKeysDocs = {
      summary: "Admin: the account's lead-intake API keys",
      description:
        'A page of 25 keys by name (`search`: part of the name): each with its `prefix` (its first 8 characters), never the key. Admins only.',
      tags: TAGS,
      querystring: AdminListQuery,
      response: { 200: AdminApiKeyListSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/api-keys', { schema: listKeysDocs }, async (request) => {
      const admin = requireAdmin(request);
      const query = parseRequest(request, 'querystring', listKeysDocs.querystring);
      return listApiKeys(db, admin.accountId, query);
    });

    const createKeyDocs = {
      summary: 'Admin: makes a lead-intake API key',
      description:
        "A new key (`ll_` and 43 random characters) for `POST /api/v1/leads`: the answer carries `key`, the only time it is shown (only its SHA-256 is kept). Leads posted with it get `profile_id` (one of the account's profiles; none: the account's first). Audited as `api_key.create`, the key redacted.",
      tags: TAGS,
      body: AdminApiKeyBody,
      response: { 201: AdminApiKeyCreatedSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.post('/api/v1/admin/api-keys', { schema: createKeyDocs }, async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseRequest(request, 'body', createKeyDocs.body);
      const data = await createApiKey(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'api-keys');
      // The key is in this answer only: nothing between here and the admin may keep it.
      void reply.header('cache-control', 'no-store');
      return reply.status(201).send({ data });
    });

    const deleteKeyDocs = {
      summary: 'Admin: removes an API key',
      description:
        "The key stops working at once, on every instance (401 for a lead posted with it). Another account's key is 404. Audited as `api_key.delete`.",
      tags: TAGS,
      params: IdParams,
      response: { 200: DeletedSchema, ...ADMIN_ONLY, 404: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.delete('/api/v1/admin/api-keys/:id', { schema: deleteKeyDocs }, async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseRequest(request, 'params', deleteKeyDocs.params);
      const data = await deleteApiKey(db, actorOf(admin), admin.accountId, id);
      await announce(admin, 'api-keys');
      return { data };
    });
  };
}
