/**
 * Admin routes of users, teams, the account and the audit log (issue 37). Each handler checks
 * the admin first (401 without a session, 403 for anyone but an admin; CSRF on writes), parses
 * with the contracts' schemas (422 with a sentence), calls the service (which writes and audits
 * in one transaction), then acts on what committed: a deactivated user's sockets close on every
 * instance, and the change is announced so every instance drops what it remembers.
 *
 * POSTs answer 201 `{ data }`; PATCH and DELETE answer 200 `{ data }` (DELETE: what was deleted).
 */
import type { FastifyInstance } from 'fastify';
import {
  AdminAccountUpdateBody,
  AdminAuditQuery,
  AdminListQuery,
  AdminTeamBody,
  AdminUserCreateBody,
  AdminUserUpdateBody,
  IdParams,
} from '@leadline/contracts';
import type { CommonServices } from '../app';
import { sessionOf } from '../auth/auth-plugin';
import { parseWith } from '../http/validate';
import { getAdminAccount, updateAdminAccount } from './admin-account';
import { listAdminAudit } from './admin-audit';
import { adminChangesOf, type AdminChangeKind } from './admin-changes';
import { requireAdmin, type AdminActor } from './admin-guard';
import { createAdminTeam, deleteAdminTeam, listAdminTeams, renameAdminTeam } from './admin-teams';
import { listAdminUsers } from './admin-users';
import { createAdminUser, updateAdminUser } from './admin-users-write';

/** Registers them. */
export function peopleAdminRoutes(deps: CommonServices) {
  return async (app: FastifyInstance): Promise<void> => {
    const { db } = deps;
    const changes = adminChangesOf(deps);
    const announce = (admin: AdminActor, what: AdminChangeKind) =>
      changes.announce({ accountId: admin.accountId, what });
    const actorOf = (admin: AdminActor) => ({ userId: admin.userId });

    // ---------------------------------------------------------------- users

    app.get('/api/v1/admin/users', async (request) => {
      const admin = requireAdmin(request);
      const query = parseWith(AdminListQuery, request.query, 'query');
      return listAdminUsers(db, admin.accountId, query);
    });

    app.post('/api/v1/admin/users', async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseWith(AdminUserCreateBody, request.body);
      const data = await createAdminUser(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'users');
      return reply.status(201).send({ data });
    });

    app.patch('/api/v1/admin/users/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const body = parseWith(AdminUserUpdateBody, request.body);
      const { user, endedSessionIds } = await updateAdminUser(
        db,
        actorOf(admin),
        admin.accountId,
        id,
        body,
        { keepSessionId: sessionOf(request).sessionId },
      );
      // Their consoles and softphones close now, here and on the other instances.
      await deps.sockets?.sessionsEnded(endedSessionIds);
      await announce(admin, 'users');
      return { data: user };
    });

    // ---------------------------------------------------------------- teams

    app.get('/api/v1/admin/teams', async (request) => {
      const admin = requireAdmin(request);
      const query = parseWith(AdminListQuery, request.query, 'query');
      return listAdminTeams(db, admin.accountId, query);
    });

    app.post('/api/v1/admin/teams', async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseWith(AdminTeamBody, request.body);
      const data = await createAdminTeam(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'teams');
      return reply.status(201).send({ data });
    });

    app.patch('/api/v1/admin/teams/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const body = parseWith(AdminTeamBody, request.body);
      const data = await renameAdminTeam(db, actorOf(admin), admin.accountId, id, body);
      await announce(admin, 'teams');
      return { data };
    });

    app.delete('/api/v1/admin/teams/:id', async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseWith(IdParams, request.params, 'path');
      const data = await deleteAdminTeam(db, actorOf(admin), admin.accountId, id);
      await announce(admin, 'teams');
      return { data };
    });

    // ---------------------------------------------------------------- account

    app.get('/api/v1/admin/account', async (request) => {
      const admin = requireAdmin(request);
      return { data: await getAdminAccount(db, admin.accountId) };
    });

    app.patch('/api/v1/admin/account', async (request) => {
      const admin = requireAdmin(request);
      const body = parseWith(AdminAccountUpdateBody, request.body);
      const data = await updateAdminAccount(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'account');
      return { data };
    });

    // ---------------------------------------------------------------- audit

    app.get('/api/v1/admin/audit', async (request) => {
      const admin = requireAdmin(request);
      const query = parseWith(AdminAuditQuery, request.query, 'query');
      return listAdminAudit(db, admin.accountId, query);
    });
  };
}
