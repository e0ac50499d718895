import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test-support/test-database';
import { queryRows, type Database } from './database';
import { IdBlocks } from './id-blocks';

describe('IdBlocks', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  it('hands out ids of the sequence, each once, across blocks, that rows then take as given', async () => {
    const blocks = new IdBlocks(database.db, 'accounts_id_seq', 4);
    const ids = await Promise.all(Array.from({ length: 10 }, () => blocks.take()));
    expect(new Set(ids).size).toBe(10);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    // A row stored meanwhile with the sequence's default gets an id nobody was handed.
    const [row] = await queryRows<{ id: number }>(
      database.db,
      sql`insert into accounts (name) values ('Default') returning id`,
    );
    expect(ids).not.toContain(Number(row!.id));
    const given = await blocks.take();
    await database.db.execute(sql`insert into accounts (id, name) values (${given}, 'Given')`);
    const [stored] = await queryRows<{ name: string }>(
      database.db,
      sql`select name from accounts where id = ${given}`,
    );
    expect(stored!.name).toBe('Given');
  });
});
