import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { assertSelfOrAdmin } from '../../resources/auth-rules.js';
import { decodeCursor, encodeCursor } from '../../resources/pagination.js';
import type { GraphqlContext } from '../context.js';
import { toResourceContext } from '../context.js';
import type { OrdersWindow } from '../batch-queries.js';
import type { OrderSource, UserSource } from '../sources.js';

/** Paging arguments of a list field. */
export interface ListArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
}

function badArgument(message: string, pointer: string): ProxyopsError {
  return new ProxyopsError('BAD_PARAMETER', message, { details: { errors: [{ pointer, message }] } });
}

/** Checks first/last/after as REST checks limit/cursor: within 1..pageSizeMax, a cursor it issued. */
export function planOrdersWindow(args: ListArgs, ctx: GraphqlContext): OrdersWindow {
  const { first, last } = args;
  if (first != null && last != null) throw badArgument('give first or last, not both', '/last');
  const count = first ?? last ?? ctx.config.pageSizeDefault;
  const max = ctx.config.pageSizeMax;
  if (!Number.isInteger(count) || count < 1 || count > max)
    throw badArgument(`must be between 1 and ${max}`, first != null ? '/first' : '/last');
  return {
    from: last != null ? 'last' : 'first',
    count,
    after: args.after == null ? '0' : decodeCursor(args.after),
  };
}

/** Field resolvers of User and Order beyond their plain properties. */
export const OBJECT_RESOLVERS = {
  User: {
    async orders(user: UserSource, args: ListArgs, ctx: GraphqlContext) {
      assertSelfOrAdmin(toResourceContext(ctx).user, user.id, 'this user');
      const orders = await ctx.loaders.ordersOfUser.load({
        userId: user.id,
        window: planOrdersWindow(args, ctx),
      });
      return orders;
    },
    async cursor(user: UserSource, _args: unknown, ctx: GraphqlContext) {
      if (user.seq !== undefined) return encodeCursor(user.seq);
      return ctx.loaders.userCursor.load(user.id);
    },
  },
  Order: {
    items(order: OrderSource, _args: unknown, ctx: GraphqlContext) {
      return order.items ?? ctx.loaders.itemsOfOrder.load(order.id);
    },
    async user(order: OrderSource, _args: unknown, ctx: GraphqlContext) {
      toResourceContext(ctx);
      const user = await ctx.loaders.user.load(order.userId);
      if (!user) throw new ProxyopsError('NOT_FOUND', `no user ${order.userId}`);
      return user;
    },
    async cursor(order: OrderSource, _args: unknown, ctx: GraphqlContext) {
      if (order.seq !== undefined) return encodeCursor(order.seq);
      return ctx.loaders.orderCursor.load(order.id);
    },
  },
};
