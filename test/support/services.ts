/**
 * Where tests find the real services: the PostgreSQL and Redis the README's set-up names, unless
 * DATABASE_URL / REDIS_URL point elsewhere. A test that needs one fails when it is not there (its
 * error names the address it tried); none is skipped because a variable was not set.
 */

/** The real PostgreSQL server (a `test` database that trusts local connections). */
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The real Redis server. */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
