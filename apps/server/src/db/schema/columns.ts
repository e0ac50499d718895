/** Columns every table shapes the same way. (The schema's index is `../schema.ts`.) */
import { timestamp } from 'drizzle-orm/pg-core';

export const createdAt = () =>
  timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
