import { isUuid } from '../resources/auth-rules.js';
import { keysetAfter, keysetOrder, ORDERS_KEYSET } from '../resources/keyset.js';
import type { OrderRow, UserRow } from '../resources/views.js';
import type { Queryable } from '../store/store.js';

/** SQL that reads many parents' children in one statement: what the GraphQL dataloaders call. */

const USER_COLUMNS =
  'id, seq::text AS seq, name, email, role, address, phone, profile, settings, version, created_at, updated_at';
const ORDER_COLUMNS =
  'id, seq::text AS seq, user_id, status, total_price_cents, version, created_at, updated_at';

/** Reads the users with these ids in one query (ids that are not UUIDs name nobody). */
export async function selectUsersByIds(db: Queryable, ids: readonly string[]): Promise<UserRow[]> {
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return [];
  return db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ANY($1::uuid[])`, [valid]);
}

/** Which orders of each user one `orders(...)` field asks for. */
export interface OrdersWindow {
  /** Keep the first `count` after `after` (oldest first), or the last `count` (most recent). */
  from: 'first' | 'last';
  count: number;
  /** Keyset position (`seq`) the window starts after; '0' for the beginning. */
  after: string;
}

/**
 * Reads a window of orders for every user in `userIds` in one query: a LATERAL subquery per user
 * walks the (user_id, seq) index, so the cost grows with the rows returned, not the table.
 * Oldest first within a user.
 */
export async function selectOrdersByUsers(
  db: Queryable,
  userIds: readonly string[],
  window: OrdersWindow,
): Promise<OrderRow[]> {
  const valid = userIds.filter(isUuid);
  if (valid.length === 0) return [];
  const direction = window.from === 'first' ? 'ASC' : 'DESC';
  return db.query<OrderRow>(
    `SELECT o.* FROM unnest($1::uuid[]) AS owner(id)
     CROSS JOIN LATERAL (
       SELECT ${ORDER_COLUMNS} FROM orders
       WHERE orders.user_id = owner.id AND ${keysetAfter(ORDERS_KEYSET, 2)}
       ${keysetOrder(ORDERS_KEYSET, direction)} LIMIT $3
     ) o
     ORDER BY o.user_id, o.seq::bigint`,
    [valid, window.after, window.count],
  );
}

/** Reads the `seq` (cursor position) of rows of `table` in one query. */
export async function selectSeqs(
  db: Queryable,
  table: 'users' | 'orders',
  ids: readonly string[],
): Promise<Array<{ id: string; seq: string }>> {
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return [];
  return db.query(`SELECT id, seq::text AS seq FROM ${table} WHERE id = ANY($1::uuid[])`, [valid]);
}
