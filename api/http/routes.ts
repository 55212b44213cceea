import type { ResourceContext } from '../resources/context.js';
import {
  cancelOrder,
  createOrder,
  deleteOrder,
  getOrder,
  getUserOrder,
  listOrderItems,
  listOrders,
  listUserOrders,
  updateOrder,
} from '../resources/orders.js';
import type { Page } from '../resources/pagination.js';
import {
  ORDER_CREATE_SCHEMA,
  ORDER_PATCH_SCHEMA,
  orderQuerySchema,
  pageQuerySchema,
  searchQuerySchema,
  USER_CREATE_SCHEMA,
  USER_PATCH_SCHEMA,
} from '../resources/schemas.js';
import { createUser, getUser, listUsers, searchUsers, updateUser } from '../resources/users.js';
import type { Link, Versioned } from '../resources/views.js';

/** What a route hands the resource function, already taken out of the HTTP request. */
export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** From If-Match; see `parseIfMatch`. */
  expectedVersions?: readonly number[];
}

/** What a resource function gave back, and so how to answer. */
export type RouteResult =
  | { kind: 'one'; value: Versioned<unknown> }
  | { kind: 'created'; value: Versioned<{ _links: { self: Link } }> }
  | { kind: 'page'; page: Page<unknown> }
  | { kind: 'none' };

/** Names of the response schemas in the OpenAPI document. */
export type ResponseSchema = 'User' | 'Order' | 'UserPage' | 'OrderPage' | 'OrderItemPage';

/** One endpoint: HTTP shape, OpenAPI facts and the resource function it calls. */
export interface RouteSpec {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form (`/users/{user_id}`). */
  path: string;
  operationId: string;
  summary: string;
  tag: 'users' | 'orders';
  body?: object;
  query?: (pageSizeMax: number) => object;
  ifMatch?: boolean;
  success: 200 | 201 | 204;
  response?: ResponseSchema;
  /** Failure statuses the endpoint can answer besides the ones every endpoint can (401, 406, 429, 500). */
  errors: number[];
  /** What a failure status means on this endpoint, where more can be said than its title. */
  errorNotes?: Partial<Record<number, string>>;
  run(ctx: ResourceContext, input: RouteInput): Promise<RouteResult>;
}

const one = async (value: Promise<Versioned<unknown>>): Promise<RouteResult> => ({
  kind: 'one',
  value: await value,
});
const page = async (value: Promise<Page<unknown>>): Promise<RouteResult> => ({
  kind: 'page',
  page: await value,
});
const param = (input: RouteInput, name: string): string => input.params[name] ?? '';

/** Every endpoint. Order matters where paths overlap: /users/search precedes /users/{user_id}. */
export const ROUTES: readonly RouteSpec[] = [
  {
    method: 'get',
    path: '/users',
    operationId: 'listUsers',
    summary: 'List users (admin)',
    tag: 'users',
    query: pageQuerySchema,
    success: 200,
    response: 'UserPage',
    errors: [400, 403],
    run: (ctx, input) => page(listUsers(ctx, input.query)),
  },
  {
    method: 'post',
    path: '/users',
    operationId: 'createUser',
    summary: 'Register a user (admin)',
    tag: 'users',
    body: USER_CREATE_SCHEMA,
    success: 201,
    response: 'User',
    errors: [400, 403, 409, 413, 415, 422],
    run: async (ctx, input) => ({ kind: 'created', value: await createUser(ctx, input.body) }),
  },
  {
    method: 'get',
    path: '/users/search',
    operationId: 'searchUsers',
    summary: 'Search users by name or e-mail (admin)',
    tag: 'users',
    query: searchQuerySchema,
    success: 200,
    response: 'UserPage',
    errors: [400, 403],
    run: (ctx, input) => page(searchUsers(ctx, input.query)),
  },
  {
    method: 'get',
    path: '/users/{user_id}',
    operationId: 'getUser',
    summary: 'Read one user (self or admin)',
    tag: 'users',
    success: 200,
    response: 'User',
    errors: [403, 404],
    run: (ctx, input) => one(getUser(ctx, param(input, 'user_id'))),
  },
  {
    method: 'patch',
    path: '/users/{user_id}',
    operationId: 'updateUser',
    summary: 'Change a user (self or admin; role: admin only)',
    tag: 'users',
    body: USER_PATCH_SCHEMA,
    ifMatch: true,
    success: 200,
    response: 'User',
    errors: [400, 403, 404, 409, 413, 415, 422],
    run: (ctx, input) => one(updateUser(ctx, param(input, 'user_id'), input.body, input.expectedVersions)),
  },
  {
    method: 'get',
    path: '/users/{user_id}/orders',
    operationId: 'listUserOrders',
    summary: "List one user's orders",
    tag: 'orders',
    query: orderQuerySchema,
    success: 200,
    response: 'OrderPage',
    errors: [400, 403, 404],
    run: (ctx, input) => page(listUserOrders(ctx, param(input, 'user_id'), input.query)),
  },
  {
    method: 'get',
    path: '/users/{user_id}/orders/{order_id}',
    operationId: 'getUserOrder',
    summary: "Read one of a user's orders",
    tag: 'orders',
    success: 200,
    response: 'Order',
    errors: [403, 404],
    run: (ctx, input) => one(getUserOrder(ctx, param(input, 'user_id'), param(input, 'order_id'))),
  },
  {
    method: 'get',
    path: '/orders',
    operationId: 'listOrders',
    summary: 'List orders (a user sees their own)',
    tag: 'orders',
    query: orderQuerySchema,
    success: 200,
    response: 'OrderPage',
    errors: [400],
    run: (ctx, input) => page(listOrders(ctx, input.query)),
  },
  {
    method: 'post',
    path: '/orders',
    operationId: 'createOrder',
    summary: 'Place an order (userId: admin only)',
    tag: 'orders',
    body: ORDER_CREATE_SCHEMA,
    success: 201,
    response: 'Order',
    errors: [400, 403, 413, 415, 422],
    // §7.1: the body is well formed but names no user, so it is unprocessable (422); 404 would say
    // that /orders itself does not exist.
    errorNotes: {
      403: '`userId` names another user and the caller is not an admin',
      422: 'The body is invalid, or `userId` names no user (`errors[].pointer` is `/userId`)',
    },
    run: async (ctx, input) => ({ kind: 'created', value: await createOrder(ctx, input.body) }),
  },
  {
    method: 'get',
    path: '/orders/{order_id}',
    operationId: 'getOrder',
    summary: 'Read one order',
    tag: 'orders',
    success: 200,
    response: 'Order',
    errors: [403, 404],
    run: (ctx, input) => one(getOrder(ctx, param(input, 'order_id'))),
  },
  {
    method: 'patch',
    path: '/orders/{order_id}',
    operationId: 'updateOrder',
    summary: 'Change the status of an order (state machine)',
    tag: 'orders',
    body: ORDER_PATCH_SCHEMA,
    ifMatch: true,
    success: 200,
    response: 'Order',
    errors: [400, 403, 404, 409, 413, 415, 422],
    run: (ctx, input) => one(updateOrder(ctx, param(input, 'order_id'), input.body, input.expectedVersions)),
  },
  {
    method: 'delete',
    path: '/orders/{order_id}',
    operationId: 'deleteOrder',
    summary: 'Delete an order',
    tag: 'orders',
    ifMatch: true,
    success: 204,
    errors: [400, 403, 404, 409, 413, 415, 422],
    run: async (ctx, input) => {
      await deleteOrder(ctx, param(input, 'order_id'), input.expectedVersions);
      return { kind: 'none' };
    },
  },
  {
    method: 'post',
    path: '/orders/{order_id}/cancel',
    operationId: 'cancelOrder',
    summary: 'Cancel a PENDING order',
    tag: 'orders',
    ifMatch: true,
    success: 200,
    response: 'Order',
    errors: [400, 403, 404, 409, 413, 415, 422],
    run: (ctx, input) => one(cancelOrder(ctx, param(input, 'order_id'), input.expectedVersions)),
  },
  {
    method: 'get',
    path: '/orders/{order_id}/items',
    operationId: 'listOrderItems',
    summary: "List an order's items",
    tag: 'orders',
    query: pageQuerySchema,
    success: 200,
    response: 'OrderItemPage',
    errors: [400, 403, 404],
    run: (ctx, input) => page(listOrderItems(ctx, param(input, 'order_id'), input.query)),
  },
];

/** The Express form of an OpenAPI path (`/users/{user_id}` -> `/users/:user_id`). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
