/**
 * What the embedded demo seed (`seed.ts`) gives away in the README: its logins, all with the
 * password `DEMO_PASSWORD`, and its lead-intake API key. A production start refuses a database
 * that holds any of them (`production-safety.ts`); `npm run remove-demo` removes them
 * (`demo-removal.ts`).
 */

/** The demo logins' password, published in the README. */
export const DEMO_PASSWORD = 'leadline-demo';

/** The demo's lead-intake API key (embedded mode's default `LEADLINE_API_KEY`). */
export const DEMO_API_KEY = 'demo-api-key';

/**
 * The e-mail addresses of the demo seed's users: the demo account's agents, supervisor and admin, and
 * the one agent of each account the spec ties to an id (`SPECIAL_ACCOUNTS`).
 */
export const DEMO_USER_EMAILS: readonly string[] = [
  'agent1@example.com',
  'agent2@example.com',
  'supervisor@example.com',
  'admin@example.com',
  'agent@a6671.example.com',
  'agent@a9920.example.com',
  'agent@a9420.example.com',
  'agent@a781.example.com',
];

/**
 * The command that removes the demo seed's logins and key from the configured database (the
 * root's script, `npm run remove-demo` still works too).
 */
export const REMOVE_DEMO_COMMAND = 'npm run admin -- remove-demo';
