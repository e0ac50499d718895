/** The pre-call network test's endpoint (issue 17; see `network-tests.ts`). */
import type { FastifyInstance } from 'fastify';
import { NetworkTestBody, type NetworkTestResponse } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { parseWith } from '../http/validate';
import type { NetworkTests } from './network-tests';

/** Routes of the network test. */
export function networkTestRoutes(deps: { networkTests: NetworkTests }) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/api/v1/network-test', async (request): Promise<NetworkTestResponse> => {
      const { user } = sessionOf(request);
      parseWith(NetworkTestBody, request.body);
      return deps.networkTests.start(user);
    });
  };
}
