import { applyMigrations } from './migrate.js';
import { createPgliteStore } from './pglite-store.js';
import { createPgStore } from './pg-store.js';
import type { Store } from './store.js';

/** Where the data lives: a PostgreSQL server when `databaseUrl` is set, otherwise embedded PGlite. */
export interface StoreOptions {
  databaseUrl?: string;
  /** PGlite only: persist in this directory instead of memory. */
  dataDir?: string;
  /** PostgreSQL only: confine the store to this schema (created when missing). */
  schema?: string;
  poolMax?: number;
  /** PostgreSQL only: connection and statement timeouts (see PgStoreOptions). */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/** Opens the store and applies pending migrations, so callers always see the current schema. */
export async function createStore(options: StoreOptions = {}): Promise<Store> {
  const store = options.databaseUrl
    ? await createPgStore({
        databaseUrl: options.databaseUrl,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        ...(options.poolMax === undefined ? {} : { poolMax: options.poolMax }),
        ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
        ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      })
    : await createPgliteStore(options.dataDir);
  try {
    await applyMigrations(store);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
