/** The pre-call network test's endpoint (issue 17; see `network-tests.ts`). */
import type { FastifyInstance } from 'fastify';
import {
  NetworkTestBody,
  NetworkTestResponseSchema,
  RefusalSchema,
  type NetworkTestResponse,
} from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import type { NetworkTests } from './network-tests';

/** Routes of the network test. */
export function networkTestRoutes(deps: { networkTests: NetworkTests }) {
  return async (app: FastifyInstance): Promise<void> => {
    const networkTest = {
      summary: 'Starts the pre-call network test (an echo call)',
      description:
        "Not in the spec: the Settings panel's pre-call network test (issue 17). Authorises one test call of the user's softphone: the console connects with `params` (`device.connect({ params: { network_test } })`) within `connect_within_seconds`, and the engine dials its echo number (`+15550199006`, docs/sandbox-numbers.md) into the call instead of a lead; the console grades what its SDK's quality monitor measures. No call, lead or history row is written. While the test lasts routing rings the user with no lead (waiting leads stay queued or go to other agents, and come once it ends); the server hangs the call up `max_seconds` after it was placed at the latest. No body (or `{}`; anything else 422). 409 when the phone is not registered, the user is on (or rung for) a call, or a test of theirs is already running; with `TELEPHONY_PROVIDER=twilio` always 409 'The network test needs the embedded voice engine; this server calls through Twilio.'. A call placed with an unknown, used, lapsed or another user's `network_test` is refused on the wire (`hangup` with error 31404).",
      tags: ['Calls'],
      body: NetworkTestBody,
      response: { 200: NetworkTestResponseSchema, 409: RefusalSchema },
    } satisfies RouteDocs;
    const route = { schema: networkTest };
    app.post('/api/v1/network-test', route, async (request): Promise<NetworkTestResponse> => {
      const { user } = sessionOf(request);
      parseRequest(request, 'body', networkTest.body);
      return deps.networkTests.start(user);
    });
  };
}
