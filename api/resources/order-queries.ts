import type { Queryable } from '../store/store.js';
import { isUuid } from './auth-rules.js';
import type { PageWindow } from './pagination.js';
import { toOrderView, type OrderItemRow, type OrderRow, type OrderView } from './views.js';

/** SQL for orders and their items; callers check access and validate input first. */

const ORDER_COLUMNS =
  'id, seq::text AS seq, user_id, status, total_price_cents, version, created_at, updated_at';
const ITEM_COLUMNS = 'id, order_id, position, product_name, quantity, unit_price_cents';

/** Reads one order row (optionally locked for update), or null. */
export async function findOrderRow(db: Queryable, orderId: string, lock = false): Promise<OrderRow | null> {
  if (!isUuid(orderId)) return null;
  const rows = await db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [orderId],
  );
  return rows[0] ?? null;
}

/** Reads a page window of orders, newest last, filtered by owner and status when given. */
export async function selectOrderRows(
  db: Queryable,
  window: PageWindow,
  filter: { userId?: string; status?: string },
): Promise<OrderRow[]> {
  const params: unknown[] = [window.after, window.limit + 1];
  const where = ['seq > $1'];
  if (filter.userId !== undefined) {
    params.push(filter.userId);
    where.push(`user_id = $${params.length}`);
  }
  if (filter.status !== undefined) {
    params.push(filter.status);
    where.push(`status = $${params.length}`);
  }
  return db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM orders WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $2`,
    params,
  );
}

/** Reads the items of several orders in one query, grouped by order id. */
export async function selectItemsByOrder(
  db: Queryable,
  orderIds: readonly string[],
): Promise<Map<string, OrderItemRow[]>> {
  const byOrder = new Map<string, OrderItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db.query<OrderItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM order_items WHERE order_id = ANY($1::uuid[]) ORDER BY order_id, position`,
    [orderIds],
  );
  for (const row of rows) byOrder.get(row.order_id)?.push(row);
  return byOrder;
}

/** Reads a page window of one order's items, by position. */
export async function selectItemRows(
  db: Queryable,
  orderId: string,
  window: PageWindow,
): Promise<Array<OrderItemRow & { seq: number }>> {
  const rows = await db.query<OrderItemRow>(
    // A cursor may name any position up to 18 digits: compared as bigint, not cast to the integer column.
    `SELECT ${ITEM_COLUMNS} FROM order_items WHERE order_id = $1 AND position > $2::bigint ORDER BY position LIMIT $3`,
    [orderId, window.after, window.limit + 1],
  );
  return rows.map((row) => ({ ...row, seq: row.position }));
}

/**
 * Inserts an order and its items in one statement (atomic without a transaction, one round trip);
 * the total is computed here, never taken from the client. A user id that names no user fails
 * with the foreign-key violation (SQLSTATE 23503).
 */
export async function insertOrder(
  db: Queryable,
  userId: string,
  items: ReadonlyArray<{ productName: string; quantity: number; unitPriceCents: number }>,
): Promise<{ order: OrderRow; items: OrderItemRow[] }> {
  const total = items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
  const rows = await db.query<OrderRow & Omit<OrderItemRow, 'id' | 'order_id'> & { item_id: string }>(
    `WITH o AS (
       INSERT INTO orders (user_id, total_price_cents) VALUES ($1, $2) RETURNING *
     ), i AS (
       INSERT INTO order_items (order_id, position, product_name, quantity, unit_price_cents)
       SELECT o.id, t.ordinality, t.name, t.qty, t.price
       FROM o, unnest($3::text[], $4::int[], $5::bigint[]) WITH ORDINALITY AS t(name, qty, price, ordinality)
       RETURNING *
     )
     SELECT o.id, o.seq::text AS seq, o.user_id, o.status, o.total_price_cents, o.version, o.created_at,
            o.updated_at, i.id AS item_id, i.position, i.product_name, i.quantity, i.unit_price_cents
     FROM o JOIN i ON i.order_id = o.id ORDER BY i.position`,
    [
      userId,
      total,
      items.map((item) => item.productName),
      items.map((item) => item.quantity),
      items.map((item) => item.unitPriceCents),
    ],
  );
  const first = rows[0] as OrderRow;
  const order: OrderRow = {
    id: first.id,
    seq: first.seq,
    user_id: first.user_id,
    status: first.status,
    total_price_cents: first.total_price_cents,
    version: first.version,
    created_at: first.created_at,
    updated_at: first.updated_at,
  };
  return {
    order,
    items: rows.map((row) => ({
      id: row.item_id,
      order_id: order.id,
      position: row.position,
      product_name: row.product_name,
      quantity: row.quantity,
      unit_price_cents: row.unit_price_cents,
    })),
  };
}

/** True when `error` is a foreign-key violation (SQLSTATE 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23503';
}

/** Sets an order's status, bumping its version. */
export async function updateOrderStatus(db: Queryable, orderId: string, status: string): Promise<OrderRow> {
  const rows = await db.query<OrderRow>(
    `UPDATE orders SET status = $2, version = version + 1, updated_at = now() WHERE id = $1
     RETURNING ${ORDER_COLUMNS}`,
    [orderId, status],
  );
  return rows[0] as OrderRow;
}

/** Reads the full representation of one order row. */
export async function loadOrderView(db: Queryable, row: OrderRow, baseUrl: string): Promise<OrderView> {
  const items = await selectItemsByOrder(db, [row.id]);
  return toOrderView(row, items.get(row.id) ?? [], baseUrl);
}
