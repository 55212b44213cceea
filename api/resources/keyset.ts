/**
 * The one way a list query pages: by a table's numeric key, compared and sorted as a number.
 *
 * Rows carry their key to JavaScript as text (a bigint does not fit a JS number), under the key's
 * own name, and PostgreSQL resolves a bare sort key to that text output column: 25 sorts before 3,
 * while the "after" condition compares numbers, so pages skip and repeat rows. Every name here is
 * qualified by its table, which always means the stored numeric column, and the cursor parameter
 * is cast to it.
 */

/** A table's keyset: the key column, qualified so no output alias can shadow it. */
export interface Keyset {
  table: string;
  key: string;
}

/** The `users` and `orders` collections page on `seq`, their insertion order. */
export const USERS_KEYSET: Keyset = { table: 'users', key: 'seq' };
export const ORDERS_KEYSET: Keyset = { table: 'orders', key: 'seq' };

/** The condition "after the cursor" for parameter `$param` (a decimal string), compared numerically. */
export function keysetAfter(keyset: Keyset, param: number): string {
  return `${keyset.table}.${keyset.key} > $${param}::bigint`;
}

/** The ORDER BY clause of a keyset page: oldest first, or newest first for a `last` window. */
export function keysetOrder(keyset: Keyset, direction: 'ASC' | 'DESC' = 'ASC'): string {
  return `ORDER BY ${keyset.table}.${keyset.key} ${direction}`;
}
