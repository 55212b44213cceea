import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { assertSelfOrAdmin, assertVersion, isSelfOrAdmin, isUuid } from './auth-rules.js';
import type { Queryable } from '../store/store.js';
import type { ResourceContext } from './context.js';
import {
  findOrderRow,
  insertOrder,
  isForeignKeyViolation,
  loadOrderView,
  selectItemRows,
  selectItemsByOrder,
  selectOrderRows,
  updateOrderStatus,
} from './order-queries.js';
import { isCancellable, planOrderTransition, type OrderState } from './order-states.js';
import { planPage, toPage, type Page, type PageQuery } from './pagination.js';
import { ORDER_CREATE_SCHEMA, ORDER_PATCH_SCHEMA, orderQuerySchema, pageQuerySchema } from './schemas.js';
import { findUserRow } from './users.js';
import { validateBody, validateQuery } from './validate.js';
import {
  toCents,
  toOrderItemView,
  toOrderView,
  type OrderItemView,
  type OrderRow,
  type OrderView,
  type Versioned,
} from './views.js';

/** Body of POST /orders after validation. */
export interface OrderInput {
  userId?: string;
  items: Array<{ productName: string; quantity: number; unitPrice: number }>;
}

const notFound = (orderId: string) => new ProxyopsError('NOT_FOUND', `no order ${orderId}`);

/** Reads an order the caller may see: 404 when missing, 403 when it is another user's. */
async function readableOrder(ctx: ResourceContext, orderId: string, lock = false, db: Queryable = ctx.store) {
  const row = await findOrderRow(db, orderId, lock);
  if (!row) throw notFound(orderId);
  assertSelfOrAdmin(ctx.user, row.user_id, 'this order');
  return row;
}

async function pageOfOrders(
  ctx: ResourceContext,
  query: Record<string, unknown>,
  userId: string | undefined,
): Promise<Page<OrderView>> {
  const input = validateQuery<PageQuery & { status?: string }>(
    orderQuerySchema(ctx.limits.pageSizeMax),
    query,
  );
  const window = planPage(input, ctx.limits);
  const rows = await selectOrderRows(ctx.store, window, {
    ...(userId === undefined ? {} : { userId }),
    ...(input.status === undefined ? {} : { status: input.status }),
  });
  const items = await selectItemsByOrder(
    ctx.store,
    rows.slice(0, window.limit).map((row) => row.id),
  );
  return toPage(rows, window, (row) => toOrderView(row, items.get(row.id) ?? [], ctx.baseUrl));
}

/** GET /orders: an admin sees every order, a user their own; `status` filters. */
export function listOrders(ctx: ResourceContext, query: Record<string, unknown>): Promise<Page<OrderView>> {
  return pageOfOrders(ctx, query, ctx.user.role === 'admin' ? undefined : ctx.user.id);
}

/** GET /users/{user_id}/orders: one user's orders. */
export async function listUserOrders(
  ctx: ResourceContext,
  userId: string,
  query: Record<string, unknown>,
): Promise<Page<OrderView>> {
  assertSelfOrAdmin(ctx.user, userId, 'this user');
  if (!(await findUserRow(ctx, userId))) throw new ProxyopsError('NOT_FOUND', `no user ${userId}`);
  return pageOfOrders(ctx, query, userId);
}

/** GET /orders/{order_id}. */
export async function getOrder(ctx: ResourceContext, orderId: string): Promise<Versioned<OrderView>> {
  const row = await readableOrder(ctx, orderId);
  return { data: await loadOrderView(ctx.store, row, ctx.baseUrl), version: row.version };
}

/** GET /users/{user_id}/orders/{order_id}: 404 unless the order belongs to that user. */
export async function getUserOrder(
  ctx: ResourceContext,
  userId: string,
  orderId: string,
): Promise<Versioned<OrderView>> {
  assertSelfOrAdmin(ctx.user, userId, 'this user');
  const row = await findOrderRow(ctx.store, orderId);
  if (!row || row.user_id !== userId) throw notFound(orderId);
  return { data: await loadOrderView(ctx.store, row, ctx.baseUrl), version: row.version };
}

/** GET /orders/{order_id}/items: the order's items, a page at a time. */
export async function listOrderItems(
  ctx: ResourceContext,
  orderId: string,
  query: Record<string, unknown>,
): Promise<Page<OrderItemView>> {
  await readableOrder(ctx, orderId);
  const window = planPage(
    validateQuery<PageQuery>(pageQuerySchema(ctx.limits.pageSizeMax), query),
    ctx.limits,
  );
  const rows = await selectItemRows(ctx.store, orderId, window);
  return toPage(rows, window, toOrderItemView);
}

/**
 * POST /orders: creates a PENDING order for the caller, or for `userId` when the caller is an admin.
 * The total is computed from the items.
 */
export async function createOrder(ctx: ResourceContext, body: unknown): Promise<Versioned<OrderView>> {
  const input = validateBody<OrderInput>(ORDER_CREATE_SCHEMA, body);
  const userId = input.userId ?? ctx.user.id;
  if (!isSelfOrAdmin(ctx.user, userId))
    throw new ProxyopsError('FORBIDDEN', 'only an admin may place an order for another user');
  const items = input.items.map((item) => ({
    productName: item.productName.normalize('NFC'),
    quantity: item.quantity,
    unitPriceCents: toCents(item.unitPrice),
  }));
  const unknownUser = (cause?: unknown) =>
    new ProxyopsError('VALIDATION_FAILED', `no user ${userId} to place the order for`, {
      cause,
      details: {
        errors: [
          { pointer: '/userId', message: input.userId ? 'names no user' : 'is required for this caller' },
        ],
      },
    });
  if (!isUuid(userId)) throw unknownUser();
  let view: Versioned<OrderView>;
  try {
    const created = await insertOrder(ctx.store, userId, items);
    view = { data: toOrderView(created.order, created.items, ctx.baseUrl), version: created.order.version };
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownUser(error);
    throw error;
  }
  ctx.events?.publish({ kind: 'order.created', order: view.data, requestId: ctx.requestId });
  return view;
}

async function moveOrder(
  ctx: ResourceContext,
  orderId: string,
  to: OrderState,
  expectedVersions: readonly number[] | undefined,
  check: (row: OrderRow) => void,
): Promise<Versioned<OrderView>> {
  const { row, from } = await ctx.store.transaction(async (tx) => {
    const current = await readableOrder(ctx, orderId, true, tx);
    assertVersion(expectedVersions, current.version, 'the order');
    check(current);
    return { row: await updateOrderStatus(tx, orderId, to), from: current.status };
  });
  const view = await loadOrderView(ctx.store, row, ctx.baseUrl);
  ctx.events?.publish({ kind: 'order.status-changed', order: view, from, requestId: ctx.requestId });
  return { data: view, version: row.version };
}

/** PATCH /orders/{order_id}: a state change along the order state machine. */
export async function updateOrder(
  ctx: ResourceContext,
  orderId: string,
  body: unknown,
  expectedVersions?: readonly number[],
): Promise<Versioned<OrderView>> {
  const input = validateBody<{ status: OrderState }>(ORDER_PATCH_SCHEMA, body);
  return moveOrder(ctx, orderId, input.status, expectedVersions, (row) => {
    planOrderTransition(row.status, input.status, ctx.user.role);
  });
}

/** POST /orders/{order_id}/cancel: cancels an order, only while it is PENDING. */
export function cancelOrder(
  ctx: ResourceContext,
  orderId: string,
  expectedVersions?: readonly number[],
): Promise<Versioned<OrderView>> {
  return moveOrder(ctx, orderId, 'CANCELLED', expectedVersions, (row) => {
    if (!isCancellable(row.status))
      throw new ProxyopsError(
        'ORDER_TRANSITION_INVALID',
        `only a PENDING order can be cancelled; this one is ${row.status}`,
      );
  });
}

/** DELETE /orders/{order_id}: an admin deletes any order; its owner only a PENDING or CANCELLED one. */
export async function deleteOrder(
  ctx: ResourceContext,
  orderId: string,
  expectedVersions?: readonly number[],
): Promise<void> {
  await ctx.store.transaction(async (tx) => {
    const row = await readableOrder(ctx, orderId, true, tx);
    assertVersion(expectedVersions, row.version, 'the order');
    if (ctx.user.role !== 'admin' && !['PENDING', 'CANCELLED'].includes(row.status))
      throw new ProxyopsError(
        'ORDER_STATE_CONFLICT',
        `an order in state ${row.status} can only be deleted by an admin`,
      );
    await tx.query('DELETE FROM orders WHERE id = $1', [orderId]);
  });
}
