import { getOrder } from '../../resources/orders.js';
import { getUser, listUsers, searchUsers } from '../../resources/users.js';
import type { UserView } from '../../resources/views.js';
import { toResourceContext, type GraphqlContext } from '../context.js';

function toPageQuery(args: { first?: number | null; after?: string | null }): Record<string, unknown> {
  return {
    ...(args.first == null ? {} : { limit: args.first }),
    ...(args.after == null ? {} : { cursor: args.after }),
  };
}

// Users read here are the ones Order.user will ask for again: the loader answers from memory.
function prime(ctx: GraphqlContext, users: readonly UserView[]): void {
  for (const user of users) ctx.loaders.user.prime(user.id, user);
}

/** Query root: each field calls the REST resource function of the same read. */
export const QUERY_RESOLVERS = {
  async user(_root: unknown, args: { id: string }, ctx: GraphqlContext) {
    const { data } = await getUser(toResourceContext(ctx), args.id);
    prime(ctx, [data]);
    return data;
  },
  async users(
    _root: unknown,
    args: { first?: number | null; after?: string | null; search?: string | null },
    ctx: GraphqlContext,
  ) {
    const resourceCtx = toResourceContext(ctx);
    const page =
      args.search == null
        ? await listUsers(resourceCtx, toPageQuery(args))
        : await searchUsers(resourceCtx, { ...toPageQuery(args), q: args.search });
    prime(ctx, page.items);
    return page.items;
  },
  async order(_root: unknown, args: { id: string }, ctx: GraphqlContext) {
    return (await getOrder(toResourceContext(ctx), args.id)).data;
  },
  async me(_root: unknown, _args: unknown, ctx: GraphqlContext) {
    const resourceCtx = toResourceContext(ctx);
    const { data } = await getUser(resourceCtx, resourceCtx.user.id);
    prime(ctx, [data]);
    return data;
  },
};
