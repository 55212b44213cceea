import { GraphQLError } from 'graphql';
import { isProxyopsError } from '../../proxy-config/core/errors.js';

/**
 * The one table from a resource error code to the GraphQL `extensions.code` it is reported as, so
 * REST and GraphQL share their rules and differ only in how an outcome is spelled.
 */
export const GRAPHQL_CODES: Readonly<Record<string, string>> = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  VALIDATION_FAILED: 'BAD_USER_INPUT',
  BAD_PARAMETER: 'BAD_USER_INPUT',
  BAD_REQUEST: 'BAD_REQUEST',
  MALFORMED_JSON: 'BAD_REQUEST',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  EMAIL_TAKEN: 'CONFLICT',
  PRECONDITION_FAILED: 'CONFLICT',
  ORDER_TRANSITION_INVALID: 'CONFLICT',
  ORDER_STATE_CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  TIMEOUT: 'TIMEOUT',
  DATABASE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

/** A GraphQL error with a stable code, for the checks of the GraphQL layer itself. */
export function createGraphqlError(
  code: string,
  message: string,
  extensions: Record<string, unknown> = {},
): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

/** True when `error` ended a statement because its request ran out of time (PostgreSQL 57014). */
function isCancelled(error: unknown): boolean {
  const value = error as { code?: unknown; name?: unknown } | null;
  return value?.code === '57014' || value?.name === 'AbortError' || value?.name === 'TimeoutError';
}

/**
 * Gives one error item its `extensions.code` and the request id. A resource error keeps its message
 * (and `reason`, the resource code); anything unknown is INTERNAL_SERVER_ERROR without its message.
 */
export function formatGraphqlError(error: Readonly<GraphQLError | Error>, requestId: string): GraphQLError {
  const graphqlError =
    error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
  const original = graphqlError.originalError ?? (error instanceof GraphQLError ? undefined : error);
  const own = graphqlError.extensions.code;
  let code = typeof own === 'string' ? own : undefined;
  let message = graphqlError.message;
  const extensions: Record<string, unknown> = { ...graphqlError.extensions };
  // graphql-js reports a variable that does not coerce with the scalar's own error as originalError:
  // the client's mistake, not a fault.
  if (!code && /^Variable "\$[_A-Za-z][_0-9A-Za-z]*" /.test(message)) code = 'BAD_USER_INPUT';
  if (!code && original && isProxyopsError(original)) {
    code = GRAPHQL_CODES[original.code];
    if (code) {
      extensions.reason = original.code;
      const fieldErrors = (original.details as { errors?: unknown } | undefined)?.errors;
      if (Array.isArray(fieldErrors)) extensions.fieldErrors = fieldErrors;
    }
  }
  if (!code && original && isCancelled(original)) {
    code = 'TIMEOUT';
    message = 'the operation ran out of time and was stopped';
  }
  if (!code && original) {
    code = 'INTERNAL_SERVER_ERROR';
    message = 'the server failed; quote the requestId when reporting it';
  }
  if (!code) code = isSyntaxError(graphqlError) ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
  return new GraphQLError(message, {
    ...(graphqlError.nodes ? { nodes: graphqlError.nodes } : {}),
    ...(graphqlError.source ? { source: graphqlError.source } : {}),
    ...(graphqlError.positions ? { positions: graphqlError.positions } : {}),
    ...(graphqlError.path ? { path: graphqlError.path } : {}),
    ...(graphqlError.originalError ? { originalError: graphqlError.originalError } : {}),
    extensions: { ...extensions, code, requestId },
  });
}

function isSyntaxError(error: GraphQLError): boolean {
  return error.message.startsWith('Syntax Error');
}

/**
 * The formatter of one request: codes and request id on every item; a fault (INTERNAL_SERVER_ERROR)
 * is handed to `logFault` with its original error, since the client sees no detail of it.
 */
export function createErrorFormatter(
  requestId: string,
  logFault?: (error: unknown) => void,
): (error: Readonly<GraphQLError | Error>) => GraphQLError {
  return (error) => {
    const formatted = formatGraphqlError(error, requestId);
    if (formatted.extensions.code === 'INTERNAL_SERVER_ERROR') logFault?.(formatted.originalError ?? error);
    return formatted;
  };
}
