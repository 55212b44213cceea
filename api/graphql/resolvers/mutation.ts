import { cancelOrder, createOrder, deleteOrder, updateOrder } from '../../resources/orders.js';
import { toResourceContext, type GraphqlContext } from '../context.js';

/** Mutation root: the REST resource functions, so auth, validation and the state machine are one. */
export const MUTATION_RESOLVERS = {
  async createOrder(_root: unknown, args: { input: Record<string, unknown> }, ctx: GraphqlContext) {
    // GraphQL hands input objects over without a prototype; the JSON Schema check wants plain data.
    const body = JSON.parse(JSON.stringify(args.input)) as Record<string, unknown>;
    if (body.userId === null) delete body.userId;
    return (await createOrder(toResourceContext(ctx), body)).data;
  },
  async cancelOrder(_root: unknown, args: { id: string }, ctx: GraphqlContext) {
    return (await cancelOrder(toResourceContext(ctx), args.id)).data;
  },
  async updateOrder(_root: unknown, args: { id: string; input: { status: string } }, ctx: GraphqlContext) {
    return (await updateOrder(toResourceContext(ctx), args.id, { status: args.input.status })).data;
  },
  async deleteOrder(_root: unknown, args: { id: string }, ctx: GraphqlContext) {
    await deleteOrder(toResourceContext(ctx), args.id);
    return args.id;
  },
};
