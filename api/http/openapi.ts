import type { ApiConfig } from '../defaults.js';
import { ORDER_STATES } from '../resources/order-states.js';
import { EMAIL_PATTERN } from '../resources/schemas.js';
import { GRAPHQL_PATH_ITEM, GRAPHQL_SCHEMAS } from './openapi-graphql.js';
import { IDEMPOTENCY_KEY_PARAMETER } from './openapi-idempotency.js';
import { PROBLEM_KINDS, PROBLEM_MEDIA_TYPE } from './problem.js';
import { ROUTES, type ResponseSchema, type RouteSpec } from './routes.js';

/** OpenAPI 3.1 reuses JSON Schema as is; only the ajv `$id` bookkeeping is dropped. */
function withoutId(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const link = {
  type: 'object',
  properties: { href: { type: 'string', format: 'uri' }, method: { type: 'string' } },
  required: ['href'],
};

const timestamps = {
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
};

const pageOf = (item: string) => ({
  type: 'object',
  properties: {
    items: { type: 'array', items: { $ref: `#/components/schemas/${item}` } },
    nextCursor: { type: ['string', 'null'] },
    _links: { type: 'object', properties: { self: link, next: link }, required: ['self'] },
  },
  required: ['items', 'nextCursor', '_links'],
});

const RESPONSE_SCHEMAS: Record<ResponseSchema | 'OrderItem' | 'Problem', object> = {
  User: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      email: { type: 'string', format: 'email', pattern: EMAIL_PATTERN },
      role: { type: 'string', enum: ['user', 'admin'] },
      address: { type: ['string', 'null'] },
      phone: { type: ['string', 'null'] },
      profile: { type: 'object' },
      settings: { type: 'object' },
      ...timestamps,
      _links: { type: 'object', properties: { self: link, orders: link }, required: ['self', 'orders'] },
    },
    required: ['id', 'name', 'email', 'role', 'createdAt', '_links'],
  },
  OrderItem: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      productName: { type: 'string' },
      quantity: { type: 'integer' },
      unitPrice: { type: 'number' },
    },
    required: ['id', 'productName', 'quantity', 'unitPrice'],
  },
  Order: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      userId: { type: 'string', format: 'uuid' },
      status: { type: 'string', enum: [...ORDER_STATES] },
      totalPrice: { type: 'number', description: 'sum of quantity x unitPrice, computed by the server' },
      items: { type: 'array', items: { $ref: '#/components/schemas/OrderItem' } },
      ...timestamps,
      _links: {
        type: 'object',
        properties: {
          self: link,
          items: link,
          user: link,
          cancel: { ...link, description: 'only while PENDING' },
        },
        required: ['self'],
      },
    },
    required: ['id', 'userId', 'status', 'totalPrice', 'items', '_links'],
  },
  UserPage: pageOf('User'),
  OrderPage: pageOf('Order'),
  OrderItemPage: pageOf('OrderItem'),
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details',
    properties: {
      type: { type: 'string', format: 'uri' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      instance: { type: 'string' },
      code: { type: 'string', enum: Object.keys(PROBLEM_KINDS) },
      requestId: { type: 'string' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: { pointer: { type: 'string' }, message: { type: 'string' } },
          required: ['pointer', 'message'],
        },
      },
    },
    required: ['type', 'title', 'status', 'detail', 'instance', 'requestId'],
  },
};

// 400: an unknown query parameter; 503: any request may meet the database unavailable (docs/api.md
// "Failure model").
const ALWAYS = [400, 401, 406, 429, 500, 503];

/** POST and PATCH take an Idempotency-Key: a bad one is 400, reused 422, in flight 409. */
const KEYED = { methods: ['post', 'patch'], statuses: [400, 409, 422] };

function problem(status: number, note?: string) {
  return {
    description: note ?? Object.values(PROBLEM_KINDS).find((k) => k.status === status)?.title ?? 'Error',
    content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

function operation(route: RouteSpec, config: ApiConfig) {
  const parameters: unknown[] = [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  if (route.query) {
    const schema = route.query(config.pageSizeMax) as {
      properties: Record<string, object>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(schema.properties))
      parameters.push({
        name,
        in: 'query',
        required: schema.required?.includes(name) ?? false,
        schema: property,
      });
  }
  if (route.ifMatch)
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'ETag from a read; a stale one is answered 409',
      schema: { type: 'string' },
    });
  const keyed = KEYED.methods.includes(route.method);
  if (keyed) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  const success =
    route.success === 204
      ? { description: 'Done; no body' }
      : {
          description: route.success === 201 ? 'Created; Location holds its URI' : 'OK',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.response}` } } },
        };
  const statuses = [...new Set([...route.errors, ...ALWAYS, ...(keyed ? KEYED.statuses : [])])].sort();
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.summary,
    tags: [route.tag],
    security: [{ bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: `#/components/schemas/${(route.body as { $id: string }).$id}` },
              },
            },
          },
        }
      : {}),
    responses: {
      [String(route.success)]: success,
      ...Object.fromEntries(
        statuses.map((status) => [String(status), problem(status, route.errorNotes?.[status])]),
      ),
    },
  };
}

const health = (description: string, withFailure: boolean) => ({
  get: {
    operationId: description.split(' ')[0]?.toLowerCase() + 'Health',
    summary: description,
    description,
    tags: ['health'],
    security: [],
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } },
      ...(withFailure ? { '503': problem(503) } : {}),
    },
  },
});

/** The OpenAPI 3.1 document, built from the route table and the schemas that validate requests. */
export function buildOpenApi(config: ApiConfig): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method] = operation(route, config);
  paths['/health/live'] = health('Liveness: the process only', false);
  paths['/health/ready'] = health('Readiness: the database; 503 while starting or draining', true);
  paths['/graphql'] = GRAPHQL_PATH_ITEM;
  paths['/health/deep'] = health('Deep check of database and cache, with latency (monitoring only)', true);
  const inputs = ROUTES.flatMap((r) => (r.body ? [r.body as { $id: string }] : []));
  return {
    openapi: '3.1.0',
    info: {
      title: 'proxyops API',
      version: '0.1.0',
      description:
        'Users and orders. Errors are application/problem+json (RFC 9457); collections are paged with ' +
        '`limit` and `cursor` and a `Link: rel="next"` header.',
      contact: { name: 'proxyops maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: `http://${config.host}:${config.port}`, description: 'this instance' }],
    tags: [
      { name: 'users', description: 'Users' },
      { name: 'orders', description: 'Orders and their items' },
      { name: 'graphql', description: 'The GraphQL endpoint (schema by introspection)' },
      { name: 'health', description: 'Health probes' },
    ],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        ...Object.fromEntries(inputs.map((schema) => [schema.$id, withoutId(schema)])),
        ...RESPONSE_SCHEMAS,
        ...GRAPHQL_SCHEMAS,
      },
    },
  };
}
