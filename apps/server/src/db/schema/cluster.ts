/**
 * The instances' shared state: the media leader and where each user's devices are connected. (The
 * schema's index is `../schema.ts`.)
 */
import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts';

/**
 * The embedded engine's media leader (issue 38): one row. The instance holding the leader's
 * advisory lock writes its URL and a new epoch (the fencing token) here; followers read it to
 * know where to relay, and check the epoch before acting for the leader.
 */
export const mediaLeader = pgTable('media_leader', {
  id: integer('id').primaryKey().default(1),
  instanceId: text('instance_id').notNull(),
  /** Where the other instances reach it (its base URL). */
  url: text('url').notNull(),
  /** Grows by one at each new leader: a fencing token. */
  epoch: integer('epoch').notNull(),
  /** The leader writes this every few seconds while it leads. */
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  electedAt: timestamp('elected_at', { withTimezone: true }).notNull().defaultNow(),
});
/**
 * Which instance holds a realtime connection of which user (issue 38): a user's device is online
 * while any instance holds one and that instance's heartbeat is fresh; an instance that dies
 * stops beating and its rows are swept.
 */
export const devicePresence = pgTable(
  'device_presence',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    since: timestamp('since', { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.instanceId] }),
    index('device_presence_heartbeat_idx').on(t.heartbeatAt),
  ],
);
