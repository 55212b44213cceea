import { ORDER_STATES } from './order-states.js';

/**
 * The JSON Schemas (2020-12 subset shared with OpenAPI 3.1) that validate every request body and
 * query. The OpenAPI document is built from these same objects.
 */

/** Text without control, surrogate, private-use or bidirectional-override characters, not blank. */
const SAFE_TEXT_PATTERN = '^(?=.*\\S)[^\\p{Cc}\\p{Cs}\\p{Co}\\u202A-\\u202E\\u2066-\\u2069]*$';

const text = (maxLength: number) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: SAFE_TEXT_PATTERN,
});

const nullableText = (maxLength: number) => ({
  oneOf: [text(maxLength), { type: 'null' }],
});

/** A flat map of small settings: plain keys, scalar values. */
const flatMap = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' },
  additionalProperties: {
    oneOf: [text(500), { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
  },
};

const userFields = {
  name: text(200),
  email: { type: 'string', format: 'email', maxLength: 254 },
  role: { type: 'string', enum: ['user', 'admin'] },
  address: nullableText(500),
  phone: {
    oneOf: [{ type: 'string', pattern: '^\\+?[0-9][0-9 ()-]{2,31}$' }, { type: 'null' }],
  },
  profile: flatMap,
  settings: flatMap,
};

/** Body of POST /users. */
export const USER_CREATE_SCHEMA = {
  $id: 'UserCreate',
  type: 'object',
  properties: userFields,
  required: ['name', 'email'],
  additionalProperties: false,
} as const;

/** Body of PATCH /users/{user_id} (JSON merge patch: null clears address or phone). */
export const USER_PATCH_SCHEMA = {
  $id: 'UserPatch',
  type: 'object',
  properties: userFields,
  minProperties: 1,
  additionalProperties: false,
} as const;

/** Body of POST /orders. */
export const ORDER_CREATE_SCHEMA = {
  $id: 'OrderCreate',
  type: 'object',
  properties: {
    userId: { type: 'string', format: 'uuid' },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        properties: {
          productName: text(200),
          quantity: { type: 'integer', minimum: 1, maximum: 10_000 },
          unitPrice: { type: 'number', minimum: 0, maximum: 1_000_000, multipleOf: 0.01 },
        },
        required: ['productName', 'quantity', 'unitPrice'],
        additionalProperties: false,
      },
    },
  },
  required: ['items'],
  additionalProperties: false,
} as const;

/** Body of PATCH /orders/{order_id}: a state change. */
export const ORDER_PATCH_SCHEMA = {
  $id: 'OrderPatch',
  type: 'object',
  properties: { status: { type: 'string', enum: [...ORDER_STATES] } },
  required: ['status'],
  additionalProperties: false,
} as const;

/** Query of every paginated collection; the maximum `limit` comes from configuration. */
export function pageQuerySchema(pageSizeMax: number) {
  return {
    $id: `PageQuery${pageSizeMax}`,
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: pageSizeMax },
      cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    },
  } as const;
}

/** Query of GET /orders and GET /users/{user_id}/orders: paging plus an optional status filter. */
export function orderQuerySchema(pageSizeMax: number) {
  const page = pageQuerySchema(pageSizeMax);
  return {
    $id: `OrderQuery${pageSizeMax}`,
    type: 'object',
    properties: { ...page.properties, status: { type: 'string', enum: [...ORDER_STATES] } },
  } as const;
}

/** Query of GET /users/search. */
export function searchQuerySchema(pageSizeMax: number) {
  const page = pageQuerySchema(pageSizeMax);
  return {
    $id: `SearchQuery${pageSizeMax}`,
    type: 'object',
    properties: { ...page.properties, q: text(100) },
    required: ['q'],
  } as const;
}
