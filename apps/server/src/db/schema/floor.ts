/**
 * The floor's counts per account and 15-minute interval (`floor/floor-counts.ts`). (The schema's
 * index is `../schema.ts`.)
 */
import {
  bigint,
  bigserial,
  index,
  integer,
  pgTable,
  primaryKey,
  timestamp,
} from 'drizzle-orm/pg-core';

/**
 * The columns of the floor's counts (issue 39), kept as calls change by the `calls_floor_counts`
 * trigger (migration 0016; `floor/floor-counts.ts` says what each holds). Times in microseconds.
 */
const floorCountColumns = {
  accountId: integer('account_id').notNull(),
  /** The 15-minute interval the calls arrived in (UTC-aligned, so every zone's too). */
  bucket: timestamp('bucket', { withTimezone: true }).notNull(),
  offered: integer('offered').notNull(),
  answered: integer('answered').notNull(),
  missed: integer('missed').notNull(),
  abandoned: integer('abandoned').notNull(),
  slMet: integer('sl_met').notNull(),
  settled: integer('settled').notNull(),
  answerMicros: bigint('answer_micros', { mode: 'number' }).notNull(),
  handled: integer('handled').notNull(),
  handleMicros: bigint('handle_micros', { mode: 'number' }).notNull(),
  talkSeconds: bigint('talk_seconds', { mode: 'number' }).notNull(),
};
/** The floor's counts per account and interval, folded from {@link floorCountDeltas}. */
export const floorCounts = pgTable('floor_counts', floorCountColumns, (t) => [
  primaryKey({ columns: [t.accountId, t.bucket] }),
]);
/**
 * What each change of a call did to its interval's counts, appended by the trigger (appends
 * never wait on each other, so calls' writes do not queue on a busy interval's row) and folded
 * into {@link floorCounts} every few seconds.
 */
export const floorCountDeltas = pgTable(
  'floor_count_deltas',
  { id: bigserial('id', { mode: 'number' }).primaryKey(), ...floorCountColumns },
  (t) => [index('floor_count_deltas_account_idx').on(t.accountId, t.bucket)],
);
