/**
 * The anonymous routes' rate limits as settings (`config.ts`): the groups, their defaults and
 * the window. What they limit and how: `anonymous-rate-limit.ts`.
 */

/** The limits' window: each count is per minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The groups of anonymous routes, each with its own count per address. */
export type AnonymousGroup = 'sign-in' | 'intake' | 'webhooks' | 'sockets';

/** How many requests one address may make per minute in each group. */
export type AnonymousRateLimits = Record<AnonymousGroup, number>;

/**
 * The defaults. An office behind one address signs in and opens two sockets per agent at the
 * start of a shift: 100 sign-ins and 300 sockets a minute let 100 to 150 agents start at once;
 * a lead source posting from one server, and Twilio's status callbacks (about ten per call),
 * get more. Each is a setting (README).
 */
export const DEFAULT_RATE_LIMITS: AnonymousRateLimits = {
  'sign-in': 100,
  intake: 600,
  webhooks: 3000,
  sockets: 300,
};
