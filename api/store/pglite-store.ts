import { PGlite } from '@electric-sql/pglite';
import type { Queryable, Store } from './store.js';

/** Opens embedded PGlite: in memory without `dataDir`, otherwise persisted in that directory. */
export async function createPgliteStore(dataDir?: string): Promise<Store> {
  const db = await PGlite.create(dataDir === undefined ? {} : { dataDir });
  const queryOn = (target: Pick<PGlite, 'query'>): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query<Row>(sql, [...params]);
      return result.rows;
    },
  });
  const { query } = queryOn(db);
  return {
    kind: 'pglite',
    // The embedded engine cannot interrupt a running statement, but one aborted while it waited its
    // turn (PGlite runs one at a time) is never started: the check runs once the engine is ours.
    query: (sql, params, options) => {
      const signal = options?.signal;
      if (!signal) return query(sql, params);
      signal.throwIfAborted();
      return db.transaction(async (tx) => {
        signal.throwIfAborted();
        return queryOn(tx).query(sql, params);
      });
    },
    transaction: (work) => db.transaction((tx) => work(queryOn(tx))),
    exec: async (sql) => {
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}
