/**
 * The administration API, `/api/v1/admin/…` (issue 37): every route needs a session, CSRF on
 * writes and the admin role (`admin-guard.ts`); every query is scoped by the admin's account.
 * Served by every instance (it needs the database only).
 */
import type { FastifyInstance } from 'fastify';
import type { CommonServices } from '../http/route-services';
import { catalogAdminRoutes } from './catalog-admin-routes';
import { peopleAdminRoutes } from './people-admin-routes';

/** Registers the admin routes. */
export function adminRoutes(deps: CommonServices) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(peopleAdminRoutes(deps));
    await app.register(catalogAdminRoutes(deps));
  };
}
