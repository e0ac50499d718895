/**
 * Statements prepared once per database: a hot query built by Drizzle on every call costs more
 * than PGlite takes to run it (building, then a fresh prepared-query object), so the few
 * statements on the path of every lead are built once, with placeholders, and reused.
 */
import type { Db } from './database';

const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * The statement `name` of `db`, built by `build` the first time. `name` must stand for one
 * query text (the PostgreSQL driver prepares it by that name on each connection).
 */
export function prepared<T>(db: Db, name: string, build: () => T): T {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build();
    statements.set(name, statement);
  }
  return statement;
}
