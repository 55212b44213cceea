import { ORDER_STATES } from './order-states.js';
import { toCharClass, type CodePointRanges } from './portable-pattern.js';
import { alwaysInvisibleBmpRanges } from './visible-text.js';

/**
 * The JSON Schemas (2020-12 subset shared with OpenAPI 3.1) that validate every request body and
 * query. The OpenAPI document is built from these same objects.
 */

/**
 * Characters no text field takes: private use (U+E000..U+F8FF) and, of the Basic Multilingual Plane,
 * every code point nobody can see wherever it stands: C0 and C1 controls, format characters (U+200B,
 * U+FEFF, the bidirectional controls), U+2028/U+2029 and the other default-ignorables
 * (`visible-text.ts`). Written as classes ECMAScript, PCRE2, RE2 and Rust's regex all read alike
 * (`portable-pattern.ts`), so validators in other languages keep the pattern rather than drop it.
 * What no portable pattern can say is refused apart from it (`validate.ts`): lone surrogates (a JSON
 * string escape of half a pair), invisible characters beyond U+FFFF, and the joiners and variation
 * selectors, which are allowed only where they change what is shown.
 */
const FORBIDDEN: CodePointRanges = [[0xe000, 0xf8ff], ...alwaysInvisibleBmpRanges()];

/** The blanks ECMA-262 `\s` matches beyond the forbidden characters: text of only these is blank. */
const BLANK: CodePointRanges = [
  [0x0020, 0x0020],
  [0x00a0, 0x00a0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];

/**
 * Text without forbidden characters and not blank: leading blanks, one character that is neither,
 * then anything allowed. No lookahead (which generators cannot invert and RE2 cannot read) and no
 * ambiguity between the parts, so matching stays linear on long input.
 */
export const SAFE_TEXT_PATTERN =
  `^${toCharClass(BLANK)}*${toCharClass([...FORBIDDEN, ...BLANK], { negated: true })}` +
  `${toCharClass(FORBIDDEN, { negated: true })}*$`;

/**
 * The e-mail check of ajv-formats' `email` format (full mode), with its `i` flag spelled out as
 * letter ranges: the document then states exactly what the server accepts (RFC 5322 allows more,
 * such as quoted local parts and address literals, which generators produce and this API refuses).
 * Inside a class the punctuators ECMAScript's `v` flag refuses bare (`( ) [ ] { } / - |`) are
 * escaped, here and in every pattern of the document: a JSON Schema validator may compile with `v`,
 * and every engine reads a backslash before a punctuator as the punctuator itself.
 */
export const EMAIL_PATTERN =
  "^[a-zA-Z0-9!#$%&'*+\\/=?^_`\\{\\|\\}~\\-]+(?:\\.[a-zA-Z0-9!#$%&'*+\\/=?^_`\\{\\|\\}~\\-]+)*@(?:[a-zA-Z0-9](?:[a-zA-Z0-9\\-]*[a-zA-Z0-9])?\\.)+[a-zA-Z0-9](?:[a-zA-Z0-9\\-]*[a-zA-Z0-9])?$";

/** An opaque page cursor as the server issues it; every value matching it is accepted. */
export const CURSOR_PATTERN = '^[0-9]{1,18}$';

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
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_\\-]{0,63}$' },
  additionalProperties: {
    oneOf: [text(500), { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
  },
};

const userFields = {
  name: text(200),
  email: { type: 'string', format: 'email', pattern: EMAIL_PATTERN, maxLength: 254 },
  role: { type: 'string', enum: ['user', 'admin'] },
  address: nullableText(500),
  phone: {
    oneOf: [{ type: 'string', pattern: '^\\+?[0-9][0-9 \\(\\)\\-]{2,31}$' }, { type: 'null' }],
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
      cursor: {
        type: 'string',
        pattern: CURSOR_PATTERN,
        description: 'nextCursor of the previous page; 0 starts at the beginning',
      },
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
