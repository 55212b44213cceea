import {
  getOperationAST,
  NoSchemaIntrospectionCustomRule,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { ApiConfig } from '../defaults.js';
import { createGraphqlError } from './errors.js';
import { findFragmentCycle, measureOperation } from './limits/measure-operation.js';
import { findExceededLimits } from './limits/query-limits.js';

/** A document that parsed, validated and stays within every limit: ready to execute. */
export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/** What one request asks to run. */
export interface OperationRequest {
  query: string;
  operationName?: string | null | undefined;
  variables?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * Parses (stopping past the token limit), validates against the schema and checks depth, cost and
 * aliases. Returns the errors to report instead of throwing: a client mistake is an answer.
 */
export function prepareOperation(
  schema: GraphQLSchema,
  request: OperationRequest,
  config: ApiConfig,
): PreparedOperation | readonly GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: config.graphqlTokenLimit });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/more tha[nt] \d+ tokens/.test(message))
      return [
        createGraphqlError('TOKEN_LIMIT', `the document has more than ${config.graphqlTokenLimit} tokens`, {
          limit: config.graphqlTokenLimit,
        }),
      ];
    return [error instanceof GraphQLError ? error : createGraphqlError('GRAPHQL_PARSE_FAILED', message)];
  }
  // Every limit is checked before validation: graphql-js's validation (overlapping fields, above all)
  // takes time exponential in a fragment bomb's depth, so a document must first prove it is small.
  const cycle = findFragmentCycle(document);
  if (cycle) return [createGraphqlError('FRAGMENT_CYCLE', `fragments spread themselves: ${cycle}`)];
  const operation = getOperationAST(document, request.operationName ?? undefined);
  if (!operation)
    return [
      createGraphqlError(
        'BAD_REQUEST',
        request.operationName
          ? `the document has no operation named ${request.operationName}`
          : 'the document has several operations: name one with operationName',
      ),
    ];
  const size = measureOperation({
    schema,
    document,
    operation,
    variables: request.variables ?? {},
    defaultListSize: config.pageSizeDefault,
  });
  const exceeded = findExceededLimits(size, config);
  if (exceeded.length > 0)
    return exceeded.map((e) => createGraphqlError(e.code, e.message, { limit: e.limit, actual: e.actual }));
  const exposed = config.graphqlIntrospection !== 'off';
  const errors = validate(
    schema,
    document,
    exposed ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule],
  );
  // "Did you mean …?" names fields of the schema: a schema kept from introspection keeps them too.
  if (errors.length > 0) return exposed ? errors : errors.map(withoutSuggestions);
  return { document, operation };
}

function withoutSuggestions(error: GraphQLError): GraphQLError {
  const message = error.message.replace(/ Did you mean .*\?$/, '');
  return message === error.message
    ? error
    : new GraphQLError(message, { nodes: error.nodes, extensions: error.extensions });
}
