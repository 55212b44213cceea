import pg from 'pg';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Queryable, QueryOptions, Store } from './store.js';
import { isDatabaseUnavailable, toStoreError } from './unavailable.js';

/** Options of a PostgreSQL-server store. */
export interface PgStoreOptions {
  databaseUrl: string;
  /** Schema used as `search_path` (created when missing): lets parallel test runs share one database. */
  schema?: string;
  poolMax?: number;
  /** Longest wait for a connection: a free pool slot, the TCP connect and the login. */
  connectTimeoutMs?: number;
  /** Longest statement: the server cancels it (statement_timeout); the client gives up soon after. */
  queryTimeoutMs?: number;
}

/** Defaults when the caller sets none (the API passes its configuration). */
const CONNECT_TIMEOUT_MS = 2_000;
const QUERY_TIMEOUT_MS = 10_000;
// A live server stops the statement itself first, which keeps the connection usable; the client's
// own timer is for a server that does not answer at all (stopped, partitioned).
const CLIENT_MARGIN_MS = 500;

/** The connection settings every client of the store uses, timeouts included. */
function clientConfig(options: PgStoreOptions): pg.ClientConfig {
  const queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
  return {
    connectionString: options.databaseUrl,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + CLIENT_MARGIN_MS,
    keepAlive: true,
  };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Cancels the statement `client` is running, from a short-lived second connection. */
async function cancelBackend(options: PgStoreOptions, client: pg.PoolClient): Promise<void> {
  const pid = (client as unknown as { processID?: number }).processID;
  if (pid === undefined) return;
  const canceller = new pg.Client(clientConfig(options));
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
    const setup = new pg.Client(clientConfig(options));
    try {
      await setup.connect();
      await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } catch (error) {
      throw toStoreError(error);
    } finally {
      await setup.end().catch(() => undefined);
    }
  }
  const pool = new pg.Pool({
    ...clientConfig(options),
    max: options.poolMax ?? 10,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const queryOn = (target: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      try {
        return (await target.query(sql, [...params])).rows as Row[];
      } catch (error) {
        throw toStoreError(error);
      }
    },
  });
  const connect = () => pool.connect().catch((error: unknown) => Promise.reject(toStoreError(error)));
  // A connection that timed out or broke goes, rather than back into the pool for the next request.
  const release = (client: pg.PoolClient, error: unknown) =>
    client.release(isDatabaseUnavailable((error as Error | undefined)?.cause ?? error) ? true : undefined);
  const { query } = queryOn(pool);
  return {
    kind: 'postgres',
    async query<Row>(sql: string, params: readonly unknown[] = [], queryOptions: QueryOptions = {}) {
      const { signal } = queryOptions;
      if (!signal) return query<Row>(sql, params);
      signal.throwIfAborted();
      // A dedicated connection, so an abort can cancel exactly this statement on the server.
      const client = await connect();
      const cancel = () => void cancelBackend(options, client).catch(() => undefined);
      signal.addEventListener('abort', cancel, { once: true });
      let failure: unknown;
      try {
        return (await client.query(sql, [...params])).rows as Row[];
      } catch (error) {
        failure = error;
        // Our own cancellation is the caller's timeout, not an unavailable database.
        throw signal.aborted ? error : toStoreError(error);
      } finally {
        signal.removeEventListener('abort', cancel);
        release(client, failure);
      }
    },
    async transaction(work) {
      const client = await connect();
      let failure: unknown;
      try {
        const tx = queryOn(client);
        await tx.query('BEGIN');
        const result = await work(tx);
        await tx.query('COMMIT');
        return result;
      } catch (error) {
        failure = error;
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        release(client, failure);
      }
    },
    exec: async (sql) => {
      await queryOn(pool).query(sql);
    },
    close: () => pool.end(),
  };
}
