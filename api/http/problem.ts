import type { Request, Response } from 'express';
import { isProxyopsError, ProxyopsError } from '../../proxy-config/core/errors.js';
import { sendAnswer, type HttpAnswer } from './answer.js';

/** Seconds a client should wait before retrying after a 503 (a dependency out, the instance starting). */
export const RETRY_AFTER_SECONDS = 5;

/** How one error code is answered over HTTP. */
export interface ProblemKind {
  status: number;
  title: string;
}

/**
 * The one table from error code to HTTP status. Resource functions throw codes; only this table
 * decides statuses. A code missing here is answered as 500.
 */
export const PROBLEM_KINDS: Readonly<Record<string, ProblemKind>> = {
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON' },
  BAD_PARAMETER: { status: 400, title: 'Bad parameter' },
  BAD_REQUEST: { status: 400, title: 'Bad request' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication required' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  EMAIL_TAKEN: { status: 409, title: 'E-mail already registered' },
  PRECONDITION_FAILED: { status: 409, title: 'Stale version' },
  ORDER_TRANSITION_INVALID: { status: 409, title: 'Order state conflict' },
  ORDER_STATE_CONFLICT: { status: 409, title: 'Order state conflict' },
  BODY_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  VALIDATION_FAILED: { status: 422, title: 'Validation failed' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  INTERNAL: { status: 500, title: 'Internal server error' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, title: 'Bad Idempotency-Key' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency-Key is already used' },
  IDEMPOTENCY_KEY_IN_FLIGHT: { status: 409, title: 'A request is outstanding for this Idempotency-Key' },
  NOT_READY: { status: 503, title: 'Service unavailable' },
  DATABASE_UNAVAILABLE: { status: 503, title: 'Database unavailable' },
};

/** The media type of every error body (RFC 9457). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** An RFC 9457 problem body, with the request id and (for validation) the field errors. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  requestId: string;
  errors?: unknown[];
}

/** The stable `type` URI of a code (`EMAIL_TAKEN` -> `urn:proxyops:problem:email-taken`). */
export function toProblemType(code: string): string {
  return `urn:proxyops:problem:${code.toLowerCase().replace(/_/g, '-')}`;
}

/** Builds the problem body of an error; anything that is not a ProxyopsError is a 500 without detail. */
export function toProblem(error: unknown, instance: string, requestId: string): ProblemBody {
  const known = isProxyopsError(error) ? PROBLEM_KINDS[error.code] : undefined;
  const code = known && isProxyopsError(error) ? error.code : 'INTERNAL';
  const kind = known ?? (PROBLEM_KINDS.INTERNAL as ProblemKind);
  const body: ProblemBody = {
    type: toProblemType(code),
    title: kind.title,
    status: kind.status,
    // Never a stack or a driver message: only our own messages reach the client.
    detail:
      known && error instanceof Error
        ? error.message
        : 'the server failed; quote the requestId when reporting it',
    instance,
    code,
    requestId,
  };
  const errors = (isProxyopsError(error) ? (error.details as { errors?: unknown[] } | undefined) : undefined)
    ?.errors;
  if (known && Array.isArray(errors)) body.errors = errors;
  return body;
}

/**
 * Renders `error` as application/problem+json, with the headers its status calls for: a 503 says
 * when to come back (Retry-After), a 401 how to authenticate, a 405 what is allowed.
 */
export function renderProblem(
  error: unknown,
  instance: string,
  requestId: string,
  extensions: Record<string, unknown> = {},
): HttpAnswer {
  const body = { ...toProblem(error, instance, requestId), ...extensions };
  const details = isProxyopsError(error) ? (error.details as Record<string, unknown> | undefined) : undefined;
  const headers: Record<string, string> = { 'content-type': PROBLEM_MEDIA_TYPE, 'cache-control': 'no-store' };
  if (body.status === 401)
    headers['www-authenticate'] = details?.tokenError
      ? `Bearer realm="proxyops", error="invalid_token", error_description="${body.detail}"`
      : 'Bearer realm="proxyops"';
  if (body.status === 405 && Array.isArray(details?.allow)) headers.allow = details.allow.join(', ');
  if (body.status === 503) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
  if (body.status === 409 && typeof details?.retryAfterSeconds === 'number')
    headers['retry-after'] = String(details.retryAfterSeconds);
  return { status: body.status, headers, body: JSON.stringify(body) };
}

/** Sends `error` as application/problem+json (see renderProblem). */
export function sendProblem(
  req: Request,
  res: Response,
  error: unknown,
  extensions: Record<string, unknown> = {},
): void {
  // The path only: a query string may carry what the client would not want echoed (tokens, e-mails).
  sendAnswer(res, renderProblem(error, problemInstance(req), String(req.id ?? ''), extensions));
}

/** The `instance` of a request's problem: its path, never its query string. */
export function problemInstance(req: Request): string {
  return req.originalUrl.split('?')[0] ?? '';
}

/** Translates body-parser's failures (by their `type`) into our error codes. */
export function fromBodyParserError(error: unknown): ProxyopsError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ProxyopsError('MALFORMED_JSON', 'the request body is not valid JSON', { cause: error });
    case 'entity.verify.failed':
      return new ProxyopsError('MALFORMED_JSON', 'the request body is not valid UTF-8', { cause: error });
    case 'entity.too.large': {
      const limit = (error as { limit?: number }).limit;
      return new ProxyopsError('BODY_TOO_LARGE', `the request body exceeds the limit of ${limit} bytes`, {
        cause: error,
      });
    }
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ProxyopsError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be UTF-8 JSON', {
        cause: error,
      });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ProxyopsError('BAD_REQUEST', 'the request body was incomplete', { cause: error });
    default:
      return fromClientError(error);
  }
}

/** The codes of the 4xx statuses Express and body-parser set on errors they raise. */
const CLIENT_STATUS_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Express and body-parser mark the client's own mistakes with a 4xx `status` (a path parameter that
 * is not valid percent-encoding, a body that does not decompress): answered with that status and
 * its own message when it is meant to be shown (`expose`), not as a 500.
 */
function fromClientError(error: unknown): ProxyopsError | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  const code = typeof status === 'number' ? CLIENT_STATUS_CODES[status] : undefined;
  if (code === undefined) return undefined;
  if (error instanceof URIError)
    return new ProxyopsError(code, 'the request path is not valid percent-encoding', { cause: error });
  const shown = (error as { expose?: unknown }).expose === true ? `: ${(error as Error).message}` : '';
  return new ProxyopsError(code, `the request could not be read${shown}`, { cause: error });
}
