/**
 * Admin routes of profiles and their tags, caller numbers and API keys (issue 37). Each handler
 * checks the admin first, parses with the contracts' schemas, calls the service (which writes
 * and audits in one transaction) and then announces the change, so every instance drops what
 * it remembers (routing settings, API keys) and the change applies to the next lead at once.
 */
import type { FastifyInstance } from 'fastify';
import {
  AdminApiKeyBody,
  AdminCallerNumberBody,
  AdminCallerNumberUpdateBody,
  AdminListQuery,
  AdminProfileCreateBody,
  AdminProfileUpdateBody,
  IdParams,
} from '@leadline/contracts';
import type { CommonServices } from '../app';
import { parseWith } from '../http/validate';
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

    app.get('/api/v1/admin/profiles', async (request) => {
      const admin = requireAdmin(request);
      const query = parseWith(AdminListQuery, request.query, 'query');
      return listProfiles(db, admin.accountId, query);
    });

    app.post('/api/v1/admin/profiles', async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseWith(AdminProfileCreateBody, request.body);
      const data = await createProfile(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'profiles');
      return reply.status(201).send({ data });
    });

    app.patch('/api/v1/admin/profiles/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const body = parseWith(AdminProfileUpdateBody, request.body);
      const data = await updateProfile(db, actorOf(admin), admin.accountId, id, body);
      await announce(admin, 'profiles');
      return { data };
    });

    // ---------------------------------------------------------------- caller numbers

    app.get('/api/v1/admin/caller-numbers', async (request) => {
      const admin = requireAdmin(request);
      const query = parseWith(AdminListQuery, request.query, 'query');
      return listCallerNumbers(db, admin.accountId, query);
    });

    app.get('/api/v1/admin/caller-numbers/available', async (request) => {
      const admin = requireAdmin(request);
      return availableNumbers(db, admin.accountId, inventory);
    });

    app.post('/api/v1/admin/caller-numbers', async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseWith(AdminCallerNumberBody, request.body);
      const data = await createCallerNumber(db, actorOf(admin), admin.accountId, body, inventory);
      await announce(admin, 'caller-numbers');
      return reply.status(201).send({ data });
    });

    app.patch('/api/v1/admin/caller-numbers/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const body = parseWith(AdminCallerNumberUpdateBody, request.body);
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

    app.delete('/api/v1/admin/caller-numbers/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const data = await deleteCallerNumber(db, actorOf(admin), admin.accountId, id);
      await announce(admin, 'caller-numbers');
      return { data };
    });

    // ---------------------------------------------------------------- API keys

    app.get('/api/v1/admin/api-keys', async (request) => {
      const admin = requireAdmin(request);
      const query = parseWith(AdminListQuery, request.query, 'query');
      return listApiKeys(db, admin.accountId, query);
    });

    app.post('/api/v1/admin/api-keys', async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseWith(AdminApiKeyBody, request.body);
      const data = await createApiKey(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'api-keys');
      // The key is in this answer only: nothing between here and the admin may keep it.
      void reply.header('cache-control', 'no-store');
      return reply.status(201).send({ data });
    });

    app.delete('/api/v1/admin/api-keys/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const data = await deleteApiKey(db, actorOf(admin), admin.accountId, id);
      await announce(admin, 'api-keys');
      return { data };
    });
  };
}
