import { IDEMPOTENCY_KEY_PARAMETER } from './openapi-idempotency.js';
import { PROBLEM_KINDS } from './problem.js';

/**
 * The GraphQL-over-HTTP endpoint as the OpenAPI document describes it: the envelope in, the
 * `{ data, errors, extensions }` result out. Its failures are GraphQL error lists, not problem
 * documents: GraphQL clients read `errors[].extensions.code`.
 */

const GRAPHQL_MEDIA_TYPES = ['application/graphql-response+json', 'application/json'];

const envelopeFields = {
  query: { type: 'string', description: 'the GraphQL document; omitted when a persisted query hash is sent' },
  operationName: { type: ['string', 'null'], description: 'which operation of the document to run' },
  variables: {
    type: ['object', 'null'],
    description: 'values of the operation variables (JSON text on GET)',
  },
  extensions: {
    type: ['object', 'null'],
    description:
      '`persistedQuery: { version: 1, sha256Hash }` runs a registered query by its hash (JSON text on GET)',
  },
};

/** `extensions` of a GET: a persisted query's hash is what a GET runs. */
const persistedExtensions = {
  type: 'object',
  properties: {
    persistedQuery: {
      type: 'object',
      properties: {
        version: { const: 1 },
        sha256Hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
      required: ['version', 'sha256Hash'],
    },
  },
  required: ['persistedQuery'],
};

/** Schemas the operations below refer to. */
export const GRAPHQL_SCHEMAS = {
  GraphqlRequest: { type: 'object', properties: envelopeFields },
  GraphqlError: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      locations: { type: 'array', items: { type: 'object' } },
      path: { type: 'array', items: { type: ['string', 'integer'] } },
      extensions: {
        type: 'object',
        properties: { code: { type: 'string' }, requestId: { type: 'string' } },
      },
    },
    required: ['message'],
  },
  GraphqlResponse: {
    type: 'object',
    properties: {
      data: { type: ['object', 'null'] },
      errors: { type: 'array', items: { $ref: '#/components/schemas/GraphqlError' } },
      extensions: { type: 'object' },
    },
  },
};

const result = (description: string) => ({
  description,
  content: Object.fromEntries(
    GRAPHQL_MEDIA_TYPES.map((type) => [type, { schema: { $ref: '#/components/schemas/GraphqlResponse' } }]),
  ),
});

function failures(statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      result(Object.values(PROBLEM_KINDS).find((k) => k.status === status)?.title ?? 'Error'),
    ]),
  );
}

const common = {
  tags: ['graphql'],
  // The token is optional: without one only public fields resolve; a bad one is 401.
  security: [{}, { bearer: [] }],
};

/** The path item of /graphql. */
export const GRAPHQL_PATH_ITEM = {
  post: {
    ...common,
    operationId: 'graphqlPost',
    summary: 'Run a GraphQL query or mutation',
    description:
      'GraphQL over HTTP. With `Accept: application/graphql-response+json` a request that does not ' +
      'validate is 400; with `application/json` it is 200 with `errors`. Depth, cost and time are limited.',
    parameters: [IDEMPOTENCY_KEY_PARAMETER],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/GraphqlRequest' } } },
    },
    responses: {
      '200': result('The result; `errors` lists what failed'),
      ...failures([400, 401, 406, 409, 413, 415, 422, 429, 500]),
    },
  },
  get: {
    ...common,
    operationId: 'graphqlGet',
    summary: 'Run a persisted GraphQL query by its hash',
    description:
      'GET runs persisted queries only (by `extensions.persistedQuery`, never query text): a GET ' +
      'without one (`extensions` missing, empty, `{}` or `null`), or with query text, is 400; a ' +
      'persisted mutation over GET is 405 (GraphQL over HTTP). HEAD is answered as GET, without ' +
      'the body. `Allow` is `GET, POST, HEAD, OPTIONS` on every answer of the API that carries it.',
    // JSON-valued parameters are `content`, so a generator sends JSON text and a validator parses it.
    // No `query`: query text goes by POST (on GET it is 400, and an empty one is ignored).
    parameters: [
      {
        name: 'extensions',
        in: 'query',
        required: true,
        description: envelopeFields.extensions.description,
        content: { 'application/json': { schema: persistedExtensions } },
      },
      {
        name: 'variables',
        in: 'query',
        required: false,
        description: envelopeFields.variables.description,
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      {
        name: 'operationName',
        in: 'query',
        required: false,
        description: envelopeFields.operationName.description,
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': result('The result; `errors` lists what failed'),
      ...failures([400, 401, 405, 406, 429, 500]),
    },
  },
};
