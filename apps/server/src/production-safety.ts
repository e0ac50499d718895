/**
 * What `npm start` checks before an install may face a network (issue 36, item 1).
 *
 * - Production refuses to start while anything of the public demo could let a stranger in:
 *   every problem is found first (the settings, then the database), then all are named at once,
 *   one per line, so one restart fixes them all.
 * - Embedded mode listening beyond loopback starts, with a warning that the demo logins are
 *   reachable from the network.
 */
import { ConfigError, type Config } from './config';
import { openDatabase, type Database, type DatabaseLocation } from './db/database';
import { DEMO_API_KEY, REMOVE_DEMO_COMMAND } from './db/demo-logins';
import { findDemoLeftovers, type DemoLeftovers } from './db/demo-removal';
import { DEMO_PASSWORD } from './db/seed';
import { isLoopbackHost } from './lib/loopback-host';

/** The shortest lead-intake key production accepts. */
export const MIN_INTAKE_KEY_LENGTH = 32;

/** Twilio's REST API: the only non-loopback `TWILIO_API_BASE_URL` production accepts. */
export const TWILIO_API_URL = 'https://api.twilio.com';

/** Production's start refused: `problems` are its lines, each a sentence with its fix. */
export class UnsafeProductionError extends ConfigError {
  constructor(readonly problems: readonly string[]) {
    super(
      `Leadline refuses to start in production mode:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    );
  }
}

export { isLoopbackHost };

/** Whether `url` is plain HTTP to another machine (what crosses a network unencrypted). */
const plainHttpBeyondLoopback = (url: string): boolean => {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname);
};

/** Production's problems that the settings alone show (none outside production). */
export function productionSettingProblems(config: Config): string[] {
  if (config.mode !== 'production') return [];
  const problems: string[] = [];
  const key = config.leadApiKey;
  if (key === DEMO_API_KEY) {
    problems.push(
      `LEADLINE_API_KEY is the demo's key (${DEMO_API_KEY}), published in the README: set a random key of at least ${MIN_INTAKE_KEY_LENGTH} characters (openssl rand -hex 32).`,
    );
  } else if (key !== undefined && key.length < MIN_INTAKE_KEY_LENGTH) {
    problems.push(
      `LEADLINE_API_KEY has ${key.length} characters: a lead-intake key needs at least ${MIN_INTAKE_KEY_LENGTH} (openssl rand -hex 32).`,
    );
  }
  if (config.tokenSecret !== undefined && config.tokenSecret === config.pusher.secret) {
    problems.push(
      'TOKEN_SECRET equals PUSHER_SECRET: give each its own random value (openssl rand -hex 32).',
    );
  }
  problems.push(...plainInstanceTrafficProblems(config));
  if (config.sso && config.sso.redirectUrl === undefined) {
    problems.push(
      "Single sign-on is on without OIDC_REDIRECT_URL: the provider's redirect would be built from each request's Host header. Set OIDC_REDIRECT_URL to the callback registered with the provider (https://<your host>/apps/workos/callback).",
    );
  } else if (config.sso?.redirectUrl && plainHttpBeyondLoopback(config.sso.redirectUrl)) {
    problems.push(
      `OIDC_REDIRECT_URL is ${config.sso.redirectUrl}: the provider sends the sign-in's code there, so it must be https://.`,
    );
  }
  if (config.telephony.provider === 'twilio') {
    if (plainHttpBeyondLoopback(config.telephony.publicBaseUrl)) {
      problems.push(
        `PUBLIC_BASE_URL is ${config.telephony.publicBaseUrl}: Twilio's webhooks (with the calls' numbers) and the agents' voice URL would cross the internet unencrypted. Serve it over https:// (docs/deployment.md).`,
      );
    }
    const base = config.telephony.apiBaseUrl;
    if (base !== TWILIO_API_URL && !isLoopbackHost(new URL(base).hostname)) {
      problems.push(
        `TWILIO_API_BASE_URL is ${base}: it must be Twilio's API (${TWILIO_API_URL}) or a stand-in on a loopback address (tests). Unset it.`,
      );
    }
  }
  return problems;
}

/**
 * The instances' own traffic in plain HTTP: what a follower relays to the leader carries the
 * browsers' session cookies, CSRF tokens and intake keys. Refused beyond loopback unless the
 * operator says the instances talk over a network only they use (`INSTANCE_NETWORK=private`).
 */
function plainInstanceTrafficProblems(config: Config): string[] {
  if (config.instanceNetwork === 'private') return [];
  const why =
    "a follower relays the browsers' session cookies, CSRF tokens and intake keys there: use https://, or set INSTANCE_NETWORK=private if the instances reach each other over a network only they use (docs/deployment.md)";
  const problems: string[] = [];
  for (const [name, url] of [
    ['INSTANCE_URL', config.instanceUrl],
    ['VOICE_MEDIA_URL', config.mediaUrl],
  ] as const) {
    if (url !== undefined && plainHttpBeyondLoopback(url)) {
      problems.push(`${name} is ${url}, plain HTTP to another machine: ${why}.`);
    }
  }
  const plain = config.allowedInstances.origins.filter(plainHttpBeyondLoopback);
  if (plain.length > 0) {
    problems.push(
      `INSTANCE_URLS lists ${plain.join(', ')}, plain HTTP to another machine: ${why}.`,
    );
  }
  return problems;
}

/** Production's problems with what the database holds of the public demo. */
export function demoLeftoverProblems(leftovers: DemoLeftovers): string[] {
  const problems: string[] = [];
  const remove = `${REMOVE_DEMO_COMMAND} (with this DATABASE_URL)`;
  if (leftovers.users.length > 0) {
    problems.push(
      `The database holds the demo seed's logins ${leftovers.users.join(', ')} (password ${DEMO_PASSWORD}, published in the README): remove them with ${remove}.`,
    );
  }
  if (leftovers.apiKey) {
    problems.push(
      `The database holds the demo API key (${DEMO_API_KEY}, published in the README): remove it with ${remove}.`,
    );
  }
  return problems;
}

/**
 * Refuses a production start (an `UnsafeProductionError` naming every problem) while the
 * settings or the database at `DATABASE_URL` keep anything of the public demo. Embedded mode
 * passes untouched. `open` opens the database (tests); it is closed again before this returns.
 */
export async function refuseUnsafeProduction(
  config: Config,
  open: (location: DatabaseLocation) => Promise<Database> = openDatabase,
): Promise<void> {
  if (config.mode !== 'production') return;
  const problems = productionSettingProblems(config);
  // Production has a DATABASE_URL (config.ts refuses it without one).
  const url = config.databaseUrl!;
  let database: Database | undefined;
  try {
    database = await open({ url });
    problems.push(...demoLeftoverProblems(await findDemoLeftovers(database.db)));
  } catch (error) {
    // Without the database the start fails anyway; the settings' problems are still told.
    if (problems.length === 0) throw error;
    problems.push(
      `The database at DATABASE_URL could not be checked for the demo seed's logins: ${rootCauseOf(error)}`,
    );
  } finally {
    await database?.close();
  }
  if (problems.length > 0) throw new UnsafeProductionError(problems);
}

/** The first line of the innermost cause's message (a driver's error, not the query wrapping it). */
function rootCauseOf(error: unknown): string {
  let cause = error;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  return message.split('\n')[0]!;
}

/**
 * The warning an embedded start listening beyond loopback logs: the demo logins are reachable
 * from the network. Null in production or on a loopback address.
 */
export function exposureWarning(config: Config): string | null {
  if (config.mode !== 'embedded' || isLoopbackHost(config.host)) return null;
  const key = config.leadApiKey === DEMO_API_KEY ? ` and the API key ${DEMO_API_KEY}` : '';
  return `HOST=${config.host} listens beyond this machine in embedded mode: the demo logins (password ${DEMO_PASSWORD}, published in the README)${key} are reachable from the network. Keep HOST=127.0.0.1 for a trial on this machine, or run LEADLINE_MODE=production (docs/deployment.md).`;
}
