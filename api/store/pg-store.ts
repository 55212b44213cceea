import pg from 'pg';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Queryable, QueryOptions, Store } from './store.js';

/** Options of a PostgreSQL-server store. */
export interface PgStoreOptions {
  databaseUrl: string;
  /** Schema used as `search_path` (created when missing): lets parallel test runs share one database. */
  schema?: string;
  poolMax?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Cancels the statement `client` is running, from a short-lived second connection. */
async function cancelBackend(databaseUrl: string, client: pg.PoolClient): Promise<void> {
  const pid = (client as unknown as { processID?: number }).processID;
  if (pid === undefined) return;
  const canceller = new pg.Client({ connectionString: databaseUrl });
  try {
    await canceller.connect();
    await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
  } finally {
    await canceller.end().catch(() => undefined);
  }
}

/** Opens a `pg` pool on a PostgreSQL server, optionally confined to one schema. */
export async function createPgStore(options: PgStoreOptions): Promise<Store> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new ProxyopsError('BAD_OPTION', `schema ${JSON.stringify(schema)} is not a plain lowercase name`);
  if (schema !== undefined) {
    const setup = new pg.Client({ connectionString: options.databaseUrl });
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await setup.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolMax ?? 10,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const queryOn = (target: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query(sql, [...params]);
      return result.rows as Row[];
    },
  });
  const { query } = queryOn(pool);
  return {
    kind: 'postgres',
    async query<Row>(sql: string, params: readonly unknown[] = [], queryOptions: QueryOptions = {}) {
      const { signal } = queryOptions;
      if (!signal) return query<Row>(sql, params);
      signal.throwIfAborted();
      // A dedicated connection, so an abort can cancel exactly this statement on the server.
      const client = await pool.connect();
      const cancel = () => void cancelBackend(options.databaseUrl, client).catch(() => undefined);
      signal.addEventListener('abort', cancel, { once: true });
      try {
        return (await client.query(sql, [...params])).rows as Row[];
      } finally {
        signal.removeEventListener('abort', cancel);
        client.release();
      }
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(queryOn(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
