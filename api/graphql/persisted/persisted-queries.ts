import { createHash } from 'node:crypto';
import type { Store } from '../../store/store.js';

/** The SHA-256 of a query text, lowercase hex: the id of a persisted query. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Registered query texts by hash, shared by every instance through the database. */
export interface PersistedQueries {
  find(hash: string): Promise<string | undefined>;
  register(hash: string, query: string): Promise<void>;
}

/** Entries kept in memory per instance (a hash names the same text forever, so none go stale). */
const MEMORY_ENTRIES = 1_000;

/** Persisted queries in the `graphql_persisted_queries` table, with a small in-memory cache. */
export function createPersistedQueries(store: Store): PersistedQueries {
  const memory = new Map<string, string>();
  const remember = (hash: string, query: string) => {
    if (memory.size >= MEMORY_ENTRIES) memory.delete(memory.keys().next().value as string);
    memory.set(hash, query);
  };
  return {
    async find(hash) {
      const known = memory.get(hash);
      if (known !== undefined) return known;
      const rows = await store.query<{ query: string }>(
        'SELECT query FROM graphql_persisted_queries WHERE sha256 = $1',
        [hash],
      );
      const query = rows[0]?.query;
      if (query !== undefined) remember(hash, query);
      return query;
    },
    async register(hash, query) {
      await store.query(
        'INSERT INTO graphql_persisted_queries (sha256, query) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING',
        [hash, query],
      );
      remember(hash, query);
    },
  };
}
