/**
 * The admin API's constants and checks that need no zod (issue 37): the console's admin screens
 * import them from `@leadline/contracts/admin-constants`, so its bundle builds no schema (zod
 * probes `new Function` when it builds one, which the console's Content-Security-Policy reports).
 */

/** What a user is in their account: an admin runs it, a supervisor and an agent take calls. */
export const USER_ROLES = ['admin', 'supervisor', 'agent'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** How many rows an admin list page holds. */
export const ADMIN_PAGE_SIZE = 25;

/** The spec's permission strings (section 6), the only ones a user may be given. */
export const PERMISSION_STRINGS = [
  'app-sms',
  'app-retry',
  'app-autoaccept',
  'listen',
  'whisper',
  'barge',
] as const;
export type PermissionString = (typeof PERMISSION_STRINGS)[number];

/** The fewest characters a password may have. */
export const PASSWORD_MIN_LENGTH = 12;
/** The most characters a password may have (scrypt hashes any length; this bounds the work). */
export const PASSWORD_MAX_LENGTH = 200;

/**
 * One sentence about why `password` is too weak, or null when it will do: at least 12
 * characters, not one character repeated, not all digits, and not the e-mail address (or its
 * name part) it belongs to.
 */
export function passwordWeakness(password: string, email?: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) {
    return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    return `The password may not be longer than ${PASSWORD_MAX_LENGTH} characters.`;
  }
  if (new Set(password).size < 5) return 'The password must use at least 5 different characters.';
  if (/^\d+$/.test(password)) return 'The password may not be only digits.';
  if (email) {
    const lower = password.toLowerCase();
    const address = email.toLowerCase();
    const local = address.split('@')[0] ?? '';
    if (lower === address || (local.length >= 4 && lower.includes(local))) {
      return 'The password may not contain the e-mail address.';
    }
  }
  return null;
}
