/** The instance bus the configuration calls for: PostgreSQL's when the database is shared. */
import { LocalInstanceBus, PgInstanceBus, type InstanceBus } from './instance-bus';

/** Opens the bus: `LISTEN`/`NOTIFY` on PostgreSQL, in process on PGlite (one process). */
export async function openInstanceBus(
  databaseUrl: string | undefined,
  log: { warn(details: object, message: string): void },
): Promise<InstanceBus> {
  return databaseUrl ? PgInstanceBus.open(databaseUrl, log) : new LocalInstanceBus();
}
