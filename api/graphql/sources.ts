import type { OrderItemView, OrderView, UserView } from '../resources/views.js';

/**
 * What a GraphQL User or Order field resolves from: the REST representation, plus the row's `seq`
 * when the query that produced it read one. An order read by a batched query has no `items` yet;
 * the items loader fills them in only when asked for.
 */
export type UserSource = UserView & { seq?: string };

/** See UserSource. */
export type OrderSource = Omit<OrderView, 'items'> & { items?: OrderItemView[]; seq?: string };
