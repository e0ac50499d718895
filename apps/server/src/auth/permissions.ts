/** The spec's permission strings (section 6), enforced on the server too. */
import { AppError } from '../http/errors';

/** Permissions and what they allow. */
export const PERMISSION = {
  sms: 'app-sms',
  retry: 'app-retry',
  autoaccept: 'app-autoaccept',
  listen: 'listen',
  whisper: 'whisper',
  barge: 'barge',
} as const;
export type Permission = (typeof PERMISSION)[keyof typeof PERMISSION];

/** Throws a 403 refusal naming the permission unless the user has it. */
export function requirePermission(
  user: { permissions: string[] },
  permission: Permission,
  action: string,
): void {
  if (!user.permissions.includes(permission)) {
    throw new AppError('FORBIDDEN', `You need the ${permission} permission to ${action}.`);
  }
}
