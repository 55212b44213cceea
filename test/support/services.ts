/**
 * Where tests find the real services. Outside CI a missing PostgreSQL or Redis only drops the
 * variants that need them; in CI (CI=true) a missing one is a failure, never a silent skip.
 */
const inCi = process.env.CI === 'true';

function required(name: string): string | undefined {
  const value = process.env[name];
  if (!value && inCi)
    throw new Error(`${name} must be set in CI: the PostgreSQL/Redis variants may not be skipped`);
  return value || undefined;
}

/** The real PostgreSQL server's URL, when the server variant of the tests should run. */
export const DATABASE_URL = required('DATABASE_URL');

/** The real Redis server's URL, when the Redis variant of the tests should run. */
export const REDIS_URL = required('REDIS_URL');
