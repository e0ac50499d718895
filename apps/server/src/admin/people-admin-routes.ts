/**
 * Admin routes of users, teams, the account and the audit log (issue 37). Each handler checks
 * the admin first (401 without a session, 403 for anyone but an admin; CSRF on writes), parses
 * with the contracts' schemas (422 with a sentence), calls the service (which writes and audits
 * in one transaction), then acts on what committed: a deactivated user's sockets close on every
 * instance, and the change is announced so every instance drops what it remembers.
 *
 * POSTs answer 201 `{ data }`; PATCH 200 `{ data }`; DELETE 200 `{ data: { id } }`.
 */
import type { FastifyInstance } from 'fastify';
import {
  AdminAccountResponseSchema,
  AdminAccountUpdateBody,
  AdminAuditListSchema,
  AdminAuditQuery,
  AdminListQuery,
  AdminTeamBody,
  AdminTeamCreatedSchema,
  AdminTeamListSchema,
  AdminUserCreateBody,
  AdminUserCreatedSchema,
  AdminUserListSchema,
  AdminUserUpdateBody,
  ErrorResponseSchema,
  IdParams,
} from '@leadline/contracts';
import { z } from 'zod';
import type { CommonServices } from '../http/route-services';
import { sessionOf } from '../auth/auth-plugin';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import { DEFAULT_DIAL_CEILING } from '../accounts/account-policy';
import { getAdminAccount, updateAdminAccount } from './admin-account';
import { listAdminAudit } from './admin-audit';
import { adminChangesOf, type AdminChangeKind } from './admin-changes';
import { requireAdmin, type AdminActor } from './admin-guard';
import { createAdminTeam, deleteAdminTeam, listAdminTeams, renameAdminTeam } from './admin-teams';
import { listAdminUsers } from './admin-users';
import { createAdminUser, updateAdminUser } from './admin-users-write';

const TAGS = ['Administration'];
/** 403 for anyone but an admin of the account. */
const ADMIN_ONLY = { 403: ErrorResponseSchema };
/** 404 for an id of another account (or none). */
const NOT_FOUND = { 404: ErrorResponseSchema };
/** What DELETE answers: the id of what was deleted. */
const DeletedSchema = z.strictObject({ data: z.strictObject({ id: z.int() }) });

/** Registers them. */
export function peopleAdminRoutes(deps: CommonServices) {
  return async (app: FastifyInstance): Promise<void> => {
    const { db } = deps;
    // The operator's ceiling over every account's dial policy (absent: the default one).
    const dialCeiling = deps.dialCeiling ?? DEFAULT_DIAL_CEILING;
    const changes = adminChangesOf(deps);
    const announce = (admin: AdminActor, what: AdminChangeKind) =>
      changes.announce({ accountId: admin.accountId, what });
    const actorOf = (admin: AdminActor) => ({ userId: admin.userId });

    // ---------------------------------------------------------------- users

    const listUsers = {
      summary: "Admin: the account's users",
      description:
        'A page of 25 users by name (`search`: part of the name or e-mail), with their role, permissions, teams and whether they are active. Admins only.',
      tags: TAGS,
      querystring: AdminListQuery,
      response: { 200: AdminUserListSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/users', { schema: listUsers }, async (request) => {
      const admin = requireAdmin(request);
      const query = parseRequest(request, 'querystring', listUsers.querystring);
      return listAdminUsers(db, admin.accountId, query);
    });

    const createUser = {
      summary: 'Admin: adds a user',
      description:
        '`{ full_name, email, password, role, permissions[], team_ids[], country_code?, phone_number?, integrations? }`: role `admin`, `supervisor` or `agent`; the password is checked for strength (and in production may not be the demo’s `leadline-demo`, 422); e-mails are unique without regard to case (409). Audited as `user.create`; the password is never stored or audited as given.',
      tags: TAGS,
      body: AdminUserCreateBody,
      response: { 201: AdminUserCreatedSchema, ...ADMIN_ONLY, 409: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.post('/api/v1/admin/users', { schema: createUser }, async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseRequest(request, 'body', createUser.body);
      const data = await createAdminUser(db, actorOf(admin), admin.accountId, body, {
        refuseDemoPassword: deps.refuseDemoPassword,
      });
      await announce(admin, 'users');
      return reply.status(201).send({ data });
    });

    const updateUser = {
      summary: 'Admin: changes a user (or deactivates them)',
      description:
        "The fields given change (a new `password` too). `active: false` ends the user's sessions and sockets at once on every instance (their console shows the login view), takes them out of routing and keeps their history. The last active admin can be neither deactivated nor demoted (409). Another account's user is 404. Audited as `user.update` (`user.deactivate`, `user.reactivate`) with what changed.",
      tags: TAGS,
      params: IdParams,
      body: AdminUserUpdateBody,
      response: {
        200: AdminUserCreatedSchema,
        ...ADMIN_ONLY,
        ...NOT_FOUND,
        409: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    app.patch('/api/v1/admin/users/:id', { schema: updateUser }, async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseRequest(request, 'params', updateUser.params);
      const body = parseRequest(request, 'body', updateUser.body);
      const { user, endedSessionIds } = await updateAdminUser(
        db,
        actorOf(admin),
        admin.accountId,
        id,
        body,
        {
          keepSessionId: sessionOf(request).sessionId,
          refuseDemoPassword: deps.refuseDemoPassword,
        },
      );
      // Their consoles and softphones close now, here and on the other instances.
      await deps.sockets?.sessionsEnded(endedSessionIds);
      await announce(admin, 'users');
      return { data: user };
    });

    // ---------------------------------------------------------------- teams

    const listTeams = {
      summary: "Admin: the account's teams",
      description:
        'A page of 25 teams by name (`search`: part of the name), with their member counts. Admins only.',
      tags: TAGS,
      querystring: AdminListQuery,
      response: { 200: AdminTeamListSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/teams', { schema: listTeams }, async (request) => {
      const admin = requireAdmin(request);
      const query = parseRequest(request, 'querystring', listTeams.querystring);
      return listAdminTeams(db, admin.accountId, query);
    });

    const createTeam = {
      summary: 'Admin: makes a team',
      description:
        '`{ name }`; names are unique per account without regard to case (409). Audited as `team.create`.',
      tags: TAGS,
      body: AdminTeamBody,
      response: { 201: AdminTeamCreatedSchema, ...ADMIN_ONLY, 409: ErrorResponseSchema },
    } satisfies RouteDocs;
    app.post('/api/v1/admin/teams', { schema: createTeam }, async (request, reply) => {
      const admin = requireAdmin(request);
      const body = parseRequest(request, 'body', createTeam.body);
      const data = await createAdminTeam(db, actorOf(admin), admin.accountId, body);
      await announce(admin, 'teams');
      return reply.status(201).send({ data });
    });

    const renameTeam = {
      summary: 'Admin: renames a team',
      description:
        "`{ name }`; 409 for a name the account has (in any case), 404 for another account's team. Audited as `team.update`.",
      tags: TAGS,
      params: IdParams,
      body: AdminTeamBody,
      response: {
        200: AdminTeamCreatedSchema,
        ...ADMIN_ONLY,
        ...NOT_FOUND,
        409: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    app.patch('/api/v1/admin/teams/:id', { schema: renameTeam }, async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseRequest(request, 'params', renameTeam.params);
      const body = parseRequest(request, 'body', renameTeam.body);
      const data = await renameAdminTeam(db, actorOf(admin), admin.accountId, id, body);
      await announce(admin, 'teams');
      return { data };
    });

    const deleteTeam = {
      summary: 'Admin: deletes a team',
      description:
        "Its members leave it; its profiles keep their rows without a team. 404 for another account's team. Audited as `team.delete`.",
      tags: TAGS,
      params: IdParams,
      response: { 200: DeletedSchema, ...ADMIN_ONLY, ...NOT_FOUND },
    } satisfies RouteDocs;
    app.delete('/api/v1/admin/teams/:id', { schema: deleteTeam }, async (request) => {
      const admin = requireAdmin(request);
      const { id } = parseRequest(request, 'params', deleteTeam.params);
      const deleted = await deleteAdminTeam(db, actorOf(admin), admin.accountId, id);
      await announce(admin, 'teams');
      return { data: { id: deleted.id } };
    });

    // ---------------------------------------------------------------- account

    const account = {
      summary: 'Admin: the account’s settings',
      description:
        "Its name, country and time zone; the account behaviours (by name); single sign-on (domain, single-sign-on-only); the toll-fraud guard's countries and limits as applied (each the narrower of the account's and the operator's ceiling, the `DIAL_*` settings: an empty country list calls nowhere); CRM integration defaults. Admins only.",
      tags: TAGS,
      response: { 200: AdminAccountResponseSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/account', { schema: account }, async (request) => {
      const admin = requireAdmin(request);
      return { data: await getAdminAccount(db, admin.accountId, dialCeiling) };
    });

    const updateAccount = {
      summary: 'Admin: changes the account’s settings',
      description:
        "The fields given change, on every instance at the next request, without a restart. Audited as `account.update` with what changed. A dial policy beyond the operator's ceiling (countries, calls per minute per agent and per account, texts per hour: the `DIAL_*` settings) is refused with 422 naming the ceiling, and nothing changes.",
      tags: TAGS,
      body: AdminAccountUpdateBody,
      response: { 200: AdminAccountResponseSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.patch('/api/v1/admin/account', { schema: updateAccount }, async (request) => {
      const admin = requireAdmin(request);
      const body = parseRequest(request, 'body', updateAccount.body);
      const data = await updateAdminAccount(db, actorOf(admin), admin.accountId, body, dialCeiling);
      await announce(admin, 'account');
      return { data };
    });

    // ---------------------------------------------------------------- audit

    const audit = {
      summary: 'Admin: who changed what, when',
      description:
        "The account's audit log, newest first, 25 a page: `{ data: [{ at, actor: { id, full_name }, action, target, changes }], meta }`; every admin write appends its entry in the same transaction (secrets redacted); the system's entries have no actor.",
      tags: TAGS,
      querystring: AdminAuditQuery,
      response: { 200: AdminAuditListSchema, ...ADMIN_ONLY },
    } satisfies RouteDocs;
    app.get('/api/v1/admin/audit', { schema: audit }, async (request) => {
      const admin = requireAdmin(request);
      const query = parseRequest(request, 'querystring', audit.querystring);
      return listAdminAudit(db, admin.accountId, query);
    });
  };
}
