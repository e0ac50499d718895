/**
 * `npm run remove-demo` (the server's script of that name): removes the embedded demo seed's logins and its API
 * key (`demo-removal.ts`) from the configured database — the PostgreSQL database at
 * `DATABASE_URL`, or without it the embedded PGlite under `DATA_DIR` — and says what it removed.
 * A production start refuses a database that holds them; run this with the same environment,
 * while no server runs on the database.
 */
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { openDatabase } from './database';
import { removeDemoLogins } from './demo-removal';

async function main(): Promise<void> {
  // npm runs a workspace's script in the workspace's folder; a relative DATA_DIR is the caller's.
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  const config = loadConfig();
  const where = config.databaseUrl
    ? 'the database at DATABASE_URL'
    : `the embedded database in ${config.dataDir}`;
  const database = await openDatabase(
    config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
  );
  try {
    const removed = await removeDemoLogins(database.db);
    if (removed.users.length === 0 && !removed.apiKey) {
      console.log(`Nothing of the demo seed is in ${where}.`);
      return;
    }
    if (removed.users.length > 0) {
      const ended = removed.sessions === 1 ? '1 session' : `${removed.sessions} sessions`;
      const sessions = removed.sessions > 0 ? ` (and their ${ended})` : '';
      console.log(
        `Removed the demo seed's logins ${removed.users.join(', ')}${sessions} from ${where}.`,
      );
    }
    if (removed.apiKey) console.log(`Removed the demo API key from ${where}.`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
