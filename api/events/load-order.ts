import { findOrderRow, loadOrderView } from '../resources/order-queries.js';
import type { OrderView } from '../resources/views.js';
import type { Queryable } from '../store/store.js';

/** Reads an order's current representation for an event that travelled as a reference. */
export function createOrderLoader(
  db: Queryable,
): (orderId: string, baseUrl: string) => Promise<OrderView | null> {
  return async (orderId, baseUrl) => {
    const row = await findOrderRow(db, orderId);
    return row ? loadOrderView(db, row, baseUrl) : null;
  };
}
