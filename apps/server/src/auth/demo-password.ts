/**
 * The demo's published password (`leadline-demo`, in the README) in production: it signs nobody
 * in, whatever the user's stored hash says (a demo user renamed in the Admin screen keeps it), and
 * nobody is given it (admin API, `npm run admin`). The embedded trial keeps it: its seeded logins
 * use it.
 */
import { DEMO_PASSWORD, REMOVE_DEMO_COMMAND } from '../db/demo-logins';

/** The sentence a password being set is refused with when it is the demo's. */
export const DEMO_PASSWORD_NOT_ALLOWED =
  "The password may not be the public demo's (leadline-demo): choose another.";

/** Whether `password` is the demo's, as scrypt would read it (`password.ts` normalizes NFKC). */
export function isDemoPassword(password: string): boolean {
  return password.normalize('NFKC') === DEMO_PASSWORD;
}

/**
 * The operator's log line when a user's stored password is still the demo's: how to give them
 * another, and how to remove the demo's logins.
 */
export function demoPasswordInUse(email: string): string {
  return `The user ${email} signed in with the demo's published password (leadline-demo), refused in production: give them a new one with npm run admin -- reset-password --email ${email} --password-stdin, or, if this is one of the demo seed's logins, remove them with ${REMOVE_DEMO_COMMAND}.`;
}
