/**
 * The domain model (Drizzle, PostgreSQL dialect: runs on PGlite and on a PostgreSQL server).
 * Every row that belongs to a customer carries `account_id`; queries are scoped by it.
 * Migrations are generated from this file (`npm run db:generate -w @leadline/server`).
 */
export type { CallStatus } from '../calls/call-status';
export type { WeeklySchedule } from '../profiles/availability';
export * from './schema/accounts';
export * from './schema/catalog';
export * from './schema/calls';
export * from './schema/floor';
export * from './schema/security';
export * from './schema/cluster';
export * from './schema/twilio';
