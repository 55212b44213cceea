import type { Response as GraphqlHttpResponse } from 'graphql-http';
import type { HttpAnswer } from '../../http/answer.js';
import { RETRY_AFTER_SECONDS } from '../../http/problem.js';
import { explainRefusal } from './explain-refusal.js';
import { GRAPHQL_ALLOW } from './request-params.js';

/** Error codes of an outcome that a retry may change: never stored under an Idempotency-Key. */
const TRANSIENT_CODES = new Set(['SERVICE_UNAVAILABLE', 'INTERNAL_SERVER_ERROR', 'TIMEOUT']);

function errorCodes(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { errors?: Array<{ extensions?: { code?: unknown } }> };
    return (parsed.errors ?? []).map((error) => String(error.extensions?.code ?? ''));
  } catch {
    return [];
  }
}

/**
 * graphql-http's `[body, init]` as the response to send: a refusal gets its explained body, a GET
 * result may be cached privately, and a result with SERVICE_UNAVAILABLE (the database out) says when
 * to retry (Retry-After), as a REST 503 does.
 */
export function toGraphqlAnswer(
  method: string,
  [body, init]: GraphqlHttpResponse,
  requestId: string,
): HttpAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = String(value);
  // graphql-http's own 405 (a mutation over GET) names POST alone; the path's methods do not change.
  if (headers.allow !== undefined) headers.allow = GRAPHQL_ALLOW;
  if (method === 'GET' && init.status === 200) headers['cache-control'] = 'private, no-cache';
  const refusal = init.status >= 400 ? explainRefusal(init.status, body, requestId) : undefined;
  if (refusal)
    return {
      status: init.status,
      headers: { ...headers, 'content-type': 'application/json' },
      body: refusal,
    };
  const text = body ?? '';
  if (errorCodes(text).includes('SERVICE_UNAVAILABLE')) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
  return { status: init.status, headers, body: text };
}

/** Whether an answer may be stored under an Idempotency-Key: no fault and no error a retry could fix. */
export function isKeepableGraphqlAnswer(answer: HttpAnswer): boolean {
  return answer.status < 500 && !errorCodes(answer.body).some((code) => TRANSIENT_CODES.has(code));
}
