/** Admin routes of users, teams, the account and the audit log (issue 37). */
import type { FastifyInstance } from 'fastify';
import type { CommonServices } from '../app';

/** Registers them. */
export function peopleAdminRoutes(_deps: CommonServices) {
  return async (_app: FastifyInstance): Promise<void> => {};
}
