/**
 * Profiles and their tags as an account's admin manages them (issue 37): list, create, update.
 * Every write appends its audit entry in its own transaction. A profile's tags keep the order
 * they were given (`tags.position`); its hours are stored as the routing's `WeeklySchedule`
 * and its ring timeout in milliseconds (`profiles.ring_timeout_ms`).
 */
import { and, asc, count, eq, ilike, inArray, sql } from 'drizzle-orm';
import {
  ADMIN_PAGE_SIZE,
  type AdminListQuery,
  type AdminProfile,
  type AdminProfileCreateBody,
  type AdminProfileList,
  type AdminProfileUpdateBody,
  type AdminTag,
  type ProfileHours,
} from '@leadline/contracts';
import type { DbOrTx } from '../db/database';
import { profiles, tags, teams, type WeeklySchedule } from '../db/schema';
import { AppError } from '../http/errors';
import { appendAudit, diffFields, type AuditActor } from './audit';
import { containing, isUniqueViolation, pageOf } from './catalog-admin-lists';

type ProfileRow = typeof profiles.$inferSelect;
type Weekday = keyof WeeklySchedule['days'];

/** The sentence of a profile name the account already has (names are unique without case). */
export const PROFILE_NAME_TAKEN = 'A profile with this name already exists.';
/** The sentence of a `team_id` that is not a team of the account. */
export const TEAM_NOT_FOUND = 'The team does not exist.';

/** The API's hours as the routing's schedule. */
export function scheduleOf(hours: ProfileHours): WeeklySchedule {
  const days: WeeklySchedule['days'] = {};
  for (const [day, intervals] of Object.entries(hours.days)) {
    if (intervals) days[Number(day) as Weekday] = intervals.map(([from, to]) => [from, to]);
  }
  return { timeZone: hours.time_zone, days };
}

/** The routing's schedule as the API's hours. */
export function hoursOf(schedule: WeeklySchedule): ProfileHours {
  const days: ProfileHours['days'] = {};
  for (const [day, intervals] of Object.entries(schedule.days)) {
    if (intervals) days[day as keyof ProfileHours['days']] = intervals.map(([a, b]) => [a, b]);
  }
  return { time_zone: schedule.timeZone, days };
}

/** The profile as the admin screens show it, with its tags in order. */
export function toAdminProfile(row: ProfileRow, tagList: AdminTag[]): AdminProfile {
  return {
    id: row.id,
    name: row.name,
    is_deal_whispertext: row.isDealWhispertext,
    auto_answer: row.autoAnswer,
    ring_timeout_seconds: row.ringTimeoutMs === null ? null : Math.round(row.ringTimeoutMs / 1000),
    team_id: row.teamId,
    hours: row.availability ? hoursOf(row.availability) : null,
    tags: tagList,
    created_at: row.createdAt.toISOString(),
  };
}

/** The tags of each profile, in their order (`position`, then id). */
async function tagsOf(db: DbOrTx, profileIds: number[]): Promise<Map<number, AdminTag[]>> {
  const byProfile = new Map<number, AdminTag[]>(profileIds.map((id) => [id, []]));
  if (profileIds.length === 0) return byProfile;
  const rows = await db
    .select()
    .from(tags)
    .where(inArray(tags.profileId, profileIds))
    .orderBy(asc(tags.profileId), asc(tags.position), asc(tags.id));
  for (const row of rows) {
    byProfile.get(row.profileId)?.push({ key: row.key, name: row.name, color: row.color });
  }
  return byProfile;
}

/** A page of the account's profiles (by name), optionally those whose name contains `search`. */
export async function listProfiles(
  db: DbOrTx,
  accountId: number,
  query: AdminListQuery,
): Promise<AdminProfileList> {
  const where = and(
    eq(profiles.accountId, accountId),
    query.search ? ilike(profiles.name, containing(query.search)) : undefined,
  );
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(profiles)
    .where(where);
  const { offset, meta } = pageOf(query.page, total);
  const rows = await db
    .select()
    .from(profiles)
    .where(where)
    .orderBy(sql`lower(${profiles.name})`, asc(profiles.id))
    .limit(ADMIN_PAGE_SIZE)
    .offset(offset);
  const tagLists = await tagsOf(
    db,
    rows.map((row) => row.id),
  );
  return { data: rows.map((row) => toAdminProfile(row, tagLists.get(row.id) ?? [])), meta };
}

/** One profile of the account; 404 when it has none with this id. */
export async function getProfile(
  db: DbOrTx,
  accountId: number,
  profileId: number,
): Promise<AdminProfile> {
  const row = await profileRowOf(db, accountId, profileId);
  return toAdminProfile(row, (await tagsOf(db, [row.id])).get(row.id) ?? []);
}

async function profileRowOf(db: DbOrTx, accountId: number, profileId: number) {
  const [row] = await db
    .select()
    .from(profiles)
    .where(and(eq(profiles.accountId, accountId), eq(profiles.id, profileId)));
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

/** Refuses (422) a team id that is not one of the account's teams. */
async function checkTeam(db: DbOrTx, accountId: number, teamId: number | null | undefined) {
  if (teamId === null || teamId === undefined) return;
  const [team] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.accountId, accountId), eq(teams.id, teamId)));
  if (!team) throw new AppError('VALIDATION_FAILED', TEAM_NOT_FOUND);
}

/** A profile name the account already has: 409. */
function nameTaken(error: unknown): never {
  if (isUniqueViolation(error)) throw new AppError('ALREADY_EXISTS', PROFILE_NAME_TAKEN);
  throw error;
}

/** The audit's view of a profile (what an admin sets). */
function audited(profile: AdminProfile): Record<string, unknown> {
  const { id: _id, created_at: _created, ...fields } = profile;
  return fields;
}

/** Makes a profile with its tags, in the order given; audit `profile.create`. */
export async function createProfile(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  body: AdminProfileCreateBody,
): Promise<AdminProfile> {
  return db
    .transaction(async (tx) => {
      await checkTeam(tx, accountId, body.team_id);
      const [row] = await tx
        .insert(profiles)
        .values({
          accountId,
          name: body.name,
          isDealWhispertext: body.is_deal_whispertext,
          autoAnswer: body.auto_answer,
          ringTimeoutMs: msOf(body.ring_timeout_seconds),
          teamId: body.team_id ?? null,
          availability: body.hours ? scheduleOf(body.hours) : null,
        })
        .returning();
      if (body.tags.length > 0) {
        await tx.insert(tags).values(
          body.tags.map((tag, position) => ({
            profileId: row!.id,
            key: tag.key,
            name: tag.name,
            color: tag.color,
            position,
          })),
        );
      }
      const profile = toAdminProfile(row!, body.tags);
      await appendAudit(tx, {
        accountId,
        actor,
        action: 'profile.create',
        target: `profile:${profile.id}`,
        changes: diffFields(null, audited(profile)),
      });
      return profile;
    })
    .catch(nameTaken);
}

const msOf = (seconds: number | null | undefined): number | null =>
  seconds === null || seconds === undefined ? null : seconds * 1000;

/**
 * Changes the fields given of one of the account's profiles (404 for another's). `tags`
 * replaces the list in the order given: tags whose key stays keep their row (calls' stages
 * name them by key), new keys are added, keys left out are removed. Audit `profile.update`
 * with the fields that changed (none: no entry).
 */
export async function updateProfile(
  db: DbOrTx,
  actor: AuditActor,
  accountId: number,
  profileId: number,
  body: AdminProfileUpdateBody,
): Promise<AdminProfile> {
  return db
    .transaction(async (tx) => {
      const before = await profileRowOf(tx, accountId, profileId);
      const beforeTags = (await tagsOf(tx, [profileId])).get(profileId) ?? [];
      await checkTeam(tx, accountId, body.team_id);
      const patch: Partial<typeof profiles.$inferInsert> = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.is_deal_whispertext !== undefined) {
        patch.isDealWhispertext = body.is_deal_whispertext;
      }
      if (body.auto_answer !== undefined) patch.autoAnswer = body.auto_answer;
      if (body.ring_timeout_seconds !== undefined) {
        patch.ringTimeoutMs = msOf(body.ring_timeout_seconds);
      }
      if (body.team_id !== undefined) patch.teamId = body.team_id;
      if (body.hours !== undefined) {
        patch.availability = body.hours === null ? null : scheduleOf(body.hours);
      }
      let row = before;
      if (Object.keys(patch).length > 0) {
        [row = before] = await tx
          .update(profiles)
          .set(patch)
          .where(eq(profiles.id, profileId))
          .returning();
      }
      if (body.tags !== undefined) await replaceTags(tx, profileId, body.tags);
      const profile = toAdminProfile(row, body.tags ?? beforeTags);
      const changes = diffFields(audited(toAdminProfile(before, beforeTags)), audited(profile));
      if (Object.keys(changes).length > 0) {
        await appendAudit(tx, {
          accountId,
          actor,
          action: 'profile.update',
          target: `profile:${profileId}`,
          changes,
        });
      }
      return profile;
    })
    .catch(nameTaken);
}

/** Makes the profile's tags exactly `list`, `position` being each one's index. */
async function replaceTags(tx: DbOrTx, profileId: number, list: AdminTag[]): Promise<void> {
  const existing = await tx
    .select({ id: tags.id, key: tags.key })
    .from(tags)
    .where(eq(tags.profileId, profileId));
  const idByKey = new Map(existing.map((tag) => [tag.key, tag.id]));
  const kept = new Set(list.map((tag) => tag.key));
  const removed = existing.filter((tag) => !kept.has(tag.key)).map((tag) => tag.id);
  if (removed.length > 0) await tx.delete(tags).where(inArray(tags.id, removed));
  for (const [position, tag] of list.entries()) {
    const id = idByKey.get(tag.key);
    if (id === undefined) {
      await tx.insert(tags).values({ profileId, ...tag, position });
    } else {
      await tx
        .update(tags)
        .set({ name: tag.name, color: tag.color, position })
        .where(eq(tags.id, id));
    }
  }
}
