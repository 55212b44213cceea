/** Something that runs one parameterised SQL statement: the store itself or an open transaction. */
export interface Queryable {
  /** Runs `sql` with `$1..$n` parameters and returns the rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** Per-query options: `signal` cancels the statement (PostgreSQL server) or keeps it from starting. */
export interface QueryOptions {
  signal?: AbortSignal;
}

/** The one query interface over embedded PGlite and a PostgreSQL server (PostgreSQL dialect only). */
export interface Store extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<Row[]>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Closes connections; later queries fail. */
  close(): Promise<void>;
}

/** True when `error` is a PostgreSQL unique-constraint violation (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}
