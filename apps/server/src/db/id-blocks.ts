/**
 * Ids taken from a table's sequence ahead of time, a block at a time: a row whose id has to be
 * known before it is stored takes one at once (routing tells the agent's device about a ring,
 * `client:<call user id>`, before the ring's row is written). Ids are never reused; one left
 * unused (a restart) is a gap, as a rolled-back insert leaves. Safe with several servers: each
 * takes its own ids from the same sequence.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from './database';

/** Ids of one sequence, taken ahead in blocks. */
export class IdBlocks {
  readonly #ids: number[] = [];
  #filling: Promise<void> | null = null;

  /**
   * `sequence`: the sequence's name (a serial column's is `<table>_<column>_seq`); a new block is
   * fetched when a quarter of `blockSize` is left.
   */
  constructor(
    private readonly db: Db,
    private readonly sequence: string,
    private readonly blockSize = 64,
  ) {}

  /** The next id (waits for a block only when none is left). */
  async take(): Promise<number> {
    if (this.#ids.length <= this.blockSize / 4) void this.#fill().catch(() => undefined);
    while (this.#ids.length === 0) await this.#fill();
    return this.#ids.shift()!;
  }

  /** Fetches one block (one fetch at a time). */
  #fill(): Promise<void> {
    this.#filling ??= (async () => {
      try {
        const rows = await queryRows<{ id: number }>(
          this.db,
          sql`select nextval(${this.sequence}::regclass)::int as id
              from generate_series(1, ${this.blockSize})`,
        );
        this.#ids.push(...rows.map((row) => Number(row.id)));
      } finally {
        this.#filling = null;
      }
    })();
    return this.#filling;
  }
}
