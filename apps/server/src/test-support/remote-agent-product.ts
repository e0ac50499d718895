/**
 * `AgentClient` against a product in another process (a child, the soak bench's host). The agent
 * client was written for the in-process product and uses of it only the URLs, its cleanups and
 * one question, "is this user online in the app?", which is answered here over HTTP. Kept apart
 * from `child-leadline.ts` so that a load process need not load the server to use it.
 */
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { users } from '../db/schema';
import type { HttpSession } from './http-session';
import type { RealLeadline } from './real-engine';

/** What {@link agentProductOf} needs of a product running in another process. */
export interface RemoteProduct {
  url: string;
  signalUrl: string;
  addCleanup(cleanup: () => Promise<void> | void): void;
}

/**
 * A product in another process as `AgentClient.login` sees one: its URLs, `addCleanup`,
 * `flows.idle()` and one query, whether the agent is online in the app
 * (`select({ online: users.isOnlineApp }).from(users).where(eq(users.id, id))`). That query is
 * answered by `observer`, another user of the account, from the agent list
 * (`GET /api/v1/users/paginated`), and `idle` has nothing to wait for (the query is polled).
 * Anything else the client would ask of the product fails loudly rather than guessing.
 */
export function agentProductOf(product: RemoteProduct, observer: HttpSession): RealLeadline {
  const adapter = {
    url: product.url,
    signalUrl: product.signalUrl,
    addCleanup: (cleanup: () => Promise<void> | void) => product.addCleanup(cleanup),
    flows: { idle: async () => undefined },
    db: { select: (fields: Record<string, unknown>) => onlineQuery(observer, fields) },
  };
  // Only the members above exist; the cast is what lets the in-process client drive a child.
  return adapter as unknown as RealLeadline;
}

const dialect = new PgDialect();

/** The one query `AgentClient.login` makes, answered over HTTP by `observer`. */
function onlineQuery(observer: HttpSession, fields: Record<string, unknown>) {
  if (Object.keys(fields).join() !== 'online' || fields.online !== users.isOnlineApp) {
    throw new Error('the remote product answers only "is this user online in the app?"');
  }
  return {
    from(table: unknown) {
      if (table !== users) throw new Error('the remote product answers only queries of users');
      return {
        async where(condition: SQL): Promise<Array<{ online: boolean }>> {
          const { sql, params } = dialect.sqlToQuery(condition);
          if (sql !== '"users"."id" = $1' || typeof params[0] !== 'number') {
            throw new Error(`the remote product answers only "users"."id" = $1, not ${sql}`);
          }
          const row = await observer.presenceOf(params[0]);
          return [{ online: row.is_online_app }];
        },
      };
    },
  };
}
