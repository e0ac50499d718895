/**
 * The product's settings for a bench whose whole load comes from one address (loopback): the
 * anonymous routes' per-address rate limits (issue 36) guard an install facing the internet; a
 * bench that signs in a hundred agents and opens a thousand sockets from 127.0.0.1 in a minute
 * measures the product, not its limits. Likewise the operator's ceiling on an account's calls a
 * minute, which every posted lead counts in (the account's own limit: `seed-agents.ts`).
 */
export const ONE_ADDRESS_LOAD: Record<string, string> = {
  RATE_LIMIT_SIGN_IN_PER_MINUTE: '1000000',
  RATE_LIMIT_INTAKE_PER_MINUTE: '1000000',
  RATE_LIMIT_WEBHOOKS_PER_MINUTE: '1000000',
  RATE_LIMIT_SOCKETS_PER_MINUTE: '1000000',
  DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT: '100000',
};
