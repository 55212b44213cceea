import DataLoader from 'dataloader';
import type { Caller } from '../resources/context.js';
import { isSelfOrAdmin } from '../resources/auth-rules.js';
import { encodeCursor } from '../resources/pagination.js';
import { selectItemsByOrder } from '../resources/order-queries.js';
import { toOrderItemView, toOrderView, toUserView, type OrderItemView } from '../resources/views.js';
import type { Queryable } from '../store/store.js';
import { selectOrdersByUsers, selectSeqs, selectUsersByIds, type OrdersWindow } from './batch-queries.js';
import type { OrderSource, UserSource } from './sources.js';

/** Per-operation batch loaders: every lookup of one execution step becomes one query. */
export interface Loaders {
  user: DataLoader<string, UserSource | null>;
  ordersOfUser: DataLoader<{ userId: string; window: OrdersWindow }, OrderSource[], string>;
  itemsOfOrder: DataLoader<string, OrderItemView[]>;
  userCursor: DataLoader<string, string | null>;
  orderCursor: DataLoader<string, string | null>;
}

/** What the loaders need: the operation's store, the caller (rows it may not see stay hidden), links. */
export interface LoaderDeps {
  db: Queryable;
  caller: Caller;
  baseUrl: string;
  /** Subscriptions re-run per event: they batch but must not serve a stale earlier answer. */
  cache?: boolean;
}

const windowKey = (window: OrdersWindow) => `${window.from}:${window.count}:${window.after}`;

/** Creates the loaders of one operation. */
export function createLoaders(deps: LoaderDeps): Loaders {
  const { db, caller, baseUrl } = deps;
  const cache = deps.cache ?? true;
  const cursorLoader = (table: 'users' | 'orders') =>
    new DataLoader<string, string | null>(
      async (ids) => {
        const seqs = new Map((await selectSeqs(db, table, ids)).map((row) => [row.id, row.seq]));
        return ids.map((id) => {
          const seq = seqs.get(id);
          return seq === undefined ? null : encodeCursor(seq);
        });
      },
      { cache },
    );
  return {
    user: new DataLoader(
      async (ids) => {
        const rows = new Map((await selectUsersByIds(db, ids)).map((row) => [row.id, row]));
        return ids.map((id) => {
          const row = rows.get(id);
          return row && isSelfOrAdmin(caller, row.id) ? { ...toUserView(row, baseUrl), seq: row.seq } : null;
        });
      },
      { cache },
    ),
    // Keys with the same window share one query; different windows in one step are one query each.
    ordersOfUser: new DataLoader(
      async (keys) => {
        const byWindow = new Map<string, { window: OrdersWindow; userIds: string[] }>();
        for (const key of keys) {
          const group = byWindow.get(windowKey(key.window)) ?? { window: key.window, userIds: [] };
          group.userIds.push(key.userId);
          byWindow.set(windowKey(key.window), group);
        }
        const found = new Map<string, OrderSource[]>();
        for (const [wk, group] of byWindow) {
          const rows = await selectOrdersByUsers(db, [...new Set(group.userIds)], group.window);
          for (const row of rows) {
            const { items: _items, ...view } = toOrderView(row, [], baseUrl);
            const list = found.get(`${wk}|${row.user_id}`) ?? [];
            list.push({ ...view, seq: row.seq });
            found.set(`${wk}|${row.user_id}`, list);
          }
        }
        return keys.map((key) => found.get(`${windowKey(key.window)}|${key.userId}`) ?? []);
      },
      { cache, cacheKeyFn: (key) => `${windowKey(key.window)}|${key.userId}` },
    ),
    itemsOfOrder: new DataLoader(
      async (orderIds) => {
        const items = await selectItemsByOrder(db, orderIds);
        return orderIds.map((id) => (items.get(id) ?? []).map(toOrderItemView));
      },
      { cache },
    ),
    userCursor: cursorLoader('users'),
    orderCursor: cursorLoader('orders'),
  };
}
