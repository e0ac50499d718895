import { z } from 'zod';

/**
 * The connect param that names a network test: the softphone places the test call with
 * `device.connect({ params: { network_test: <test id> } })`, and the server dials the engine's
 * echo number for it instead of a lead.
 */
export const NETWORK_TEST_PARAM = 'network_test';

/**
 * POST /api/v1/network-test (issue 17's pre-call network test in Settings): authorises one test
 * call of the signed-in user's softphone. It takes no parameters: no body, or an empty object.
 */
export const NetworkTestBody = z
  .strictObject({}, { error: 'A network test takes no parameters: send no body or {}.' })
  .optional();
export type NetworkTestBody = z.infer<typeof NetworkTestBody>;

/**
 * Answer of POST /api/v1/network-test: what the softphone connects with. The test call creates
 * no call, lead or history row, and routing rings the agent with no lead while it lasts.
 */
export const NetworkTestResponseSchema = z.strictObject({
  success: z.literal(true),
  /** The test's id (opaque); good for one call, placed within `connect_within_seconds`. */
  test_id: z.string().min(1),
  /** The connect params of the test call: `device.connect({ params })`. */
  params: z.strictObject({ [NETWORK_TEST_PARAM]: z.string().min(1) }),
  /** The server hangs the test call up this long after it was placed, at the latest. */
  max_seconds: z.number().positive(),
  /** The test lapses (and the agent is routed leads again) if no call is placed within this. */
  connect_within_seconds: z.number().positive(),
});
/** Answer of POST /api/v1/network-test. */
export type NetworkTestResponse = z.infer<typeof NetworkTestResponseSchema>;
