import type { RequestHandler } from 'express';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { RouteSpec } from './routes.js';

/** The query parameters a route documents: the properties of its query schema, or none. */
export function queryNamesOf(route: RouteSpec, pageSizeMax: number): ReadonlySet<string> {
  const schema = route.query?.(pageSizeMax) as { properties?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(schema?.properties ?? {}));
}

/** A JSON Pointer (RFC 6901) to one query parameter. */
const toPointer = (name: string) => `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * 400 naming every query parameter the route does not document. A misspelt `limt=5` or `staus=PAID`
 * silently ignored would return a different page than the client asked for, and look right.
 */
export function rejectUnknownQuery(route: RouteSpec, pageSizeMax: number): RequestHandler {
  const known = queryNamesOf(route, pageSizeMax);
  return (req, _res, next) => {
    // No query string, nothing to check: Express would parse the empty one on every read of req.query.
    if (!req.url.includes('?')) return next();
    const unknown = Object.keys(req.query as Record<string, unknown>).filter((name) => !known.has(name));
    if (unknown.length === 0) return next();
    const list = unknown.map((name) => JSON.stringify(name)).join(', ');
    const accepted = known.size
      ? `; this endpoint takes ${[...known].join(', ')}`
      : '; this endpoint takes none';
    next(
      new ProxyopsError('BAD_PARAMETER', `unknown query parameter ${list}${accepted}`, {
        details: {
          errors: unknown.map((name) => ({ pointer: toPointer(name), message: 'is not a known parameter' })),
        },
      }),
    );
  };
}
