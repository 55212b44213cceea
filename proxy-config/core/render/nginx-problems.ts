/** An error nginx answers itself, and how the rendered config words it. */
interface NginxProblem {
  status: number;
  code: string;
  title: string;
  detail: string;
  /** Seconds a client should wait before retrying, for statuses that invite a retry. */
  retryAfter?: number;
  /** The Allow header of a 405 (RFC 9110 section 15.5.6 requires one). */
  allow?: string;
}

/**
 * What nginx passes on to the application. nginx refuses TRACE and CONNECT itself, before it picks a
 * location, so it cannot ask the application which methods the path has; it names the ones it would
 * pass on, and OPTIONS (which it does pass on) gets the application's own list for the path.
 */
const PASSED_ON_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * The errors nginx makes itself, in the API's problem shape (same `type`, `code` and `requestId`
 * fields), so a client parses one error format whichever layer answered. Upstream error bodies are
 * not replaced: the config never sets proxy_intercept_errors.
 */
const NGINX_PROBLEMS: readonly NginxProblem[] = [
  {
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    title: 'Method not allowed',
    detail: 'the proxy does not pass TRACE or CONNECT on; OPTIONS on this path lists the methods it takes',
    allow: PASSED_ON_METHODS,
  },
  {
    status: 413,
    code: 'BODY_TOO_LARGE',
    title: 'Request body too large',
    detail: 'the proxy refused a body above its client_max_body_size',
  },
  {
    status: 429,
    code: 'RATE_LIMITED',
    title: 'Too many requests',
    detail:
      'a proxy limit on requests or concurrent connections was reached; retry after the Retry-After delay',
    retryAfter: 1,
  },
  {
    status: 502,
    code: 'UPSTREAM_UNAVAILABLE',
    title: 'Bad gateway',
    detail: 'the proxy could not get a response from the application',
  },
  {
    status: 503,
    code: 'UNAVAILABLE',
    title: 'Service unavailable',
    detail: 'the proxy cannot serve this request now; retry after the Retry-After delay',
    retryAfter: 5,
  },
  {
    status: 504,
    code: 'UPSTREAM_TIMEOUT',
    title: 'Gateway timeout',
    detail: 'the application did not answer within the proxy read timeout',
  },
];

/** A problem as the template places it: a named location and the body nginx returns. */
export interface NginxProblemView {
  status: number;
  location: string;
  /** The body inside nginx single quotes: JSON with nginx variables for the id and path. */
  body: string;
  /** 0 when the status invites no retry; a variable when the value depends on the location. */
  retryAfter: number | string;
  /** The Allow header of a 405, else empty. */
  allow: string;
}

/** The variable a rate-limited location sets to its own Retry-After (seconds until its next slot). */
export const RETRY_AFTER_VARIABLE = '$proxyops_retry_after';

/**
 * The named locations of the nginx-made problems. The request id and path come from variables the
 * config first restricts to safe characters (REQUEST_ID_PATTERN, a map on $uri), so a client cannot
 * break out of the JSON string.
 */
export function toNginxProblemViews(
  layerName: string,
  options: { retryAfterPerLocation?: boolean } = {},
): NginxProblemView[] {
  return NGINX_PROBLEMS.map((p) => {
    const body = JSON.stringify({
      type: `urn:proxyops:problem:${p.code.toLowerCase().replace(/_/g, '-')}`,
      title: p.title,
      status: p.status,
      detail: p.detail,
      instance: '__INSTANCE__',
      code: p.code,
      requestId: '__REQUEST_ID__',
      layer: layerName,
    })
      .replace('"__INSTANCE__"', '"$proxyops_problem_instance"')
      .replace('"__REQUEST_ID__"', '"$proxyops_request_id"');
    return {
      status: p.status,
      location: `@proxyops_problem_${p.status}`,
      body,
      retryAfter:
        p.status === 429 && options.retryAfterPerLocation ? RETRY_AFTER_VARIABLE : (p.retryAfter ?? 0),
      allow: p.allow ?? '',
    };
  });
}
