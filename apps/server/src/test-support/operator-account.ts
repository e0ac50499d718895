/**
 * An operator's own account, as a production database holds one: no login of the public demo
 * (a production start refuses those, `production-safety.ts`). One account with a profile, a
 * caller number, a team of its agents and supervisors, each logging in with
 * {@link OPERATOR_PASSWORD}. Tests of production starts put it in their database first, as an
 * operator would create their users.
 */
import { hashPassword } from '../auth/password';
import type { Db } from '../db/database';
import {
  accounts,
  callerNumbers,
  numberAssignments,
  profiles,
  teamMembers,
  teams,
  users,
} from '../db/schema';

/** The password of every login {@link seedOperatorAccount} creates. */
export const OPERATOR_PASSWORD = 'operator-password-0123456789';

const AGENT_PERMISSIONS = ['app-sms', 'app-retry', 'app-autoaccept'];
const SUPERVISOR_PERMISSIONS = [...AGENT_PERMISSIONS, 'listen', 'whisper', 'barge'];

/** What {@link seedOperatorAccount} makes. */
export interface OperatorAccountOptions {
  /** The account's caller number (E.164): a number of its telephony provider. */
  callerNumber: string;
  /** The agents' e-mail addresses. */
  agents: string[];
  /** The supervisors' e-mail addresses (listen, whisper, barge). */
  supervisors?: string[];
  /** The admins' e-mail addresses (role admin, no call permissions; in no team). */
  admins?: string[];
}

/** Creates the account and its users; resolves with the account's id. */
export async function seedOperatorAccount(
  db: Db,
  options: OperatorAccountOptions,
): Promise<{ accountId: number }> {
  const passwordHash = await hashPassword(OPERATOR_PASSWORD);
  return db.transaction(async (tx) => {
    const [account] = await tx
      .insert(accounts)
      .values({ name: 'Operator Co' })
      .returning({ id: accounts.id });
    const accountId = account!.id;
    const [profile] = await tx
      .insert(profiles)
      .values({ accountId, name: 'Inbound leads', autoAnswer: true })
      .returning({ id: profiles.id });
    // The operator assigned the number to the account before its admin made it a caller number.
    await tx.insert(numberAssignments).values({ phoneNumber: options.callerNumber, accountId });
    await tx.insert(callerNumbers).values({
      accountId,
      profileId: profile!.id,
      name: 'Main line',
      phoneNumber: options.callerNumber,
    });
    const people = [
      ...options.agents.map((email) => ({ email, permissions: AGENT_PERMISSIONS })),
      ...(options.supervisors ?? []).map((email) => ({
        email,
        permissions: SUPERVISOR_PERMISSIONS,
      })),
    ];
    const created = await tx
      .insert(users)
      .values(
        people.map(({ email, permissions }) => ({
          accountId,
          email,
          passwordHash,
          fullName: email.split('@')[0]!,
          permissions,
        })),
      )
      .returning({ id: users.id });
    const admins = options.admins ?? [];
    if (admins.length > 0) {
      await tx.insert(users).values(
        admins.map((email) => ({
          accountId,
          email,
          passwordHash,
          fullName: email.split('@')[0]!,
          role: 'admin' as const,
        })),
      );
    }
    const [team] = await tx
      .insert(teams)
      .values({ accountId, name: 'Floor' })
      .returning({ id: teams.id });
    await tx
      .insert(teamMembers)
      .values(created.map((user) => ({ teamId: team!.id, userId: user.id })));
    return { accountId };
  });
}
