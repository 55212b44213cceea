import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { assertSelfOrAdmin, isSelfOrAdmin } from '../../resources/auth-rules.js';
import type { OrderEvent } from '../../resources/order-events.js';
import { getOrder } from '../../resources/orders.js';
import { toResourceContext, type GraphqlContext } from '../context.js';
import { streamOrderEvents } from './event-stream.js';

interface Filter {
  userId?: string | null;
  orderId?: string | null;
}

/**
 * Checks the filters with the REST rules (a user may follow only their own orders; a named order
 * must be readable) and returns which events this subscriber may see.
 */
async function planFilter(ctx: GraphqlContext, args: Filter): Promise<(event: OrderEvent) => boolean> {
  const resourceCtx = toResourceContext(ctx);
  const caller = resourceCtx.user;
  if (args.userId != null) assertSelfOrAdmin(caller, args.userId, 'this user');
  if (args.orderId != null) await getOrder(resourceCtx, args.orderId);
  // An ordinary user without a filter follows their own orders only.
  const userId = args.userId ?? (caller.role === 'admin' ? undefined : caller.id);
  return (event) =>
    isSelfOrAdmin(caller, event.order.userId) &&
    (userId === undefined || event.order.userId === userId) &&
    (args.orderId == null || event.order.id === args.orderId);
}

function requireEvents(ctx: GraphqlContext) {
  if (!ctx.events) throw new ProxyopsError('INTERNAL', 'this instance publishes no order events');
  return ctx.events;
}

/** Subscription root: order events, filtered per subscriber; each event resolves to its order. */
export const SUBSCRIPTION_RESOLVERS = {
  orderCreated: {
    async subscribe(_root: unknown, args: Filter, ctx: GraphqlContext) {
      const accept = await planFilter(ctx, { userId: args.userId ?? null });
      return streamOrderEvents(requireEvents(ctx), (e) => e.kind === 'order.created' && accept(e));
    },
    resolve: (event: OrderEvent) => event.order,
  },
  orderStatusChanged: {
    async subscribe(_root: unknown, args: Filter, ctx: GraphqlContext) {
      const accept = await planFilter(ctx, args);
      return streamOrderEvents(requireEvents(ctx), (e) => e.kind === 'order.status-changed' && accept(e));
    },
    resolve: (event: OrderEvent) => event.order,
  },
};
