/**
 * A fresh PostgreSQL database for one benchmark round, created on the server of
 * `BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`) and dropped again
 * at the end (as the tests' scratch databases, apps/server/src/test-support/test-database.ts);
 * and the settings every instance of one Leadline cluster shares (docs/deployment.md, several
 * instances).
 *
 * The server's own CPU is read per backend: the processes PostgreSQL forked for the connections
 * to this database (`pg_stat_activity`), from `/proc` (the bench runs on the same machine). Its
 * background processes (checkpointer, WAL writer…) serve every database on the server and are
 * left out.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cpuMs } from './processes';

/** The PostgreSQL server the benchmarks make their scratch databases on. */
export const BENCH_POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * What every instance of one cluster is started with: the shared secrets a follower needs to
 * relay (its sessions and tokens are read by the leader), as docs/deployment.md says.
 */
export const CLUSTER_SECRETS: Record<string, string> = {
  TOKEN_SECRET: 'bench-cluster-token-secret-0123456789abcdef0123',
  PUSHER_SECRET: 'bench-cluster-pusher-secret-0123456789',
};

/** A scratch database and what the bench asks of it. */
export interface ScratchPostgres {
  /** Its URL (`DATABASE_URL` of the instances). */
  readonly url: string;
  readonly name: string;
  /** The pids of the server processes serving connections to it now. */
  backendPids(): Promise<number[]>;
  /** Drops it (ending its connections first); closes the admin connection. */
  drop(): Promise<void>;
}

/** Whether the PostgreSQL server answers (a bench without it says so instead of failing). */
export async function postgresAnswers(): Promise<boolean> {
  const probe = new pg.Client({
    connectionString: BENCH_POSTGRES_URL,
    connectionTimeoutMillis: 2000,
  });
  try {
    await probe.connect();
    await probe.end();
    return true;
  } catch {
    return false;
  }
}

/** Creates a new database `leadline_bench_<prefix>_<hex>`. */
export async function createScratchPostgres(prefix: string): Promise<ScratchPostgres> {
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  await admin.connect();
  const name = `leadline_bench_${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(BENCH_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async backendPids() {
      const { rows } = await admin.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = $1',
        [name],
      );
      return rows.map((r) => r.pid);
    },
    async drop() {
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      await admin.query(`drop database if exists ${name}`);
      await admin.end();
    },
  };
}

/** CPU time of each process (ms) by pid; processes that ended meanwhile are left out. */
export function cpuByPid(pids: readonly number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      used.set(pid, cpuMs(pid));
    } catch {
      // It ended (a connection closed).
    }
  }
  return used;
}

/**
 * CPU the processes used between two readings (ms): for a process present in both, the
 * difference; for one only in `after` (a connection opened meanwhile), all of it.
 */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, used] of after) sum += used - (before.get(pid) ?? 0);
  return sum;
}
