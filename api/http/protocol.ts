import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { ApiConfig } from '../defaults.js';
import { linkBase } from './link-base.js';

/** Value of the `Server` header: names this layer, so a 413 or 503 can be told from a proxy's. */
export const SERVER_HEADER = 'proxyops-api';

/** Media types a request body may have. */
export const JSON_BODY_TYPES = ['application/json', 'application/*+json'];

/** Marks every response with the layer's name and a default of "do not store". */
export function markResponse(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Server', SERVER_HEADER);
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/** Answers a path with a trailing slash by 308 to the canonical path, keeping method, body and query. */
export function redirectTrailingSlash(config: Pick<ApiConfig, 'publicBaseUrl'>): RequestHandler {
  return (req, res, next) => {
    const [path = '', query] = splitUrl(req.originalUrl);
    if (path.length <= 1 || !path.endsWith('/')) return next();
    const canonical = path.replace(/\/+$/, '') || '/';
    const base = linkBase(config, req.protocol, req.host);
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(308)
      .location(`${base}${canonical}${query === undefined ? '' : `?${query}`}`)
      .end();
  };
}

function splitUrl(url: string): [string, string | undefined] {
  const at = url.indexOf('?');
  return at === -1 ? [url, undefined] : [url.slice(0, at), url.slice(at + 1)];
}

/** 406 unless the client accepts application/json; `application/json;q=0` refuses it even beside a wildcard. */
export function requireAcceptableJson(req: Request, _res: Response, next: NextFunction): void {
  if (!req.headers.accept || req.accepts('application/json')) return next();
  next(
    new ProxyopsError(
      'NOT_ACCEPTABLE',
      `this API answers application/json only; the Accept header was ${JSON.stringify(req.headers.accept)}`,
    ),
  );
}

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** 415 when a request that carries a body does not declare it as JSON. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (!hasBody(req) && !req.headers['content-type']) return next();
  if (req.is(JSON_BODY_TYPES)) return next();
  next(
    new ProxyopsError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the request body must be application/json; got ${JSON.stringify(req.headers['content-type'] ?? 'no Content-Type')}`,
    ),
  );
};

/**
 * For an action that takes no input (cancel, delete): no body, or an empty JSON object as some
 * clients always send. Anything else is refused before the action runs, never ignored.
 */
export function checksEmptyBody(parseJson: RequestHandler): RequestHandler[] {
  const onlyWithBody =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      hasBody(req) ? handler(req, res, next) : next();
  const requireEmpty: RequestHandler = (req, _res, next) => {
    const body: unknown = req.body;
    const empty =
      body === undefined ||
      (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
    if (empty) return next();
    next(
      new ProxyopsError('VALIDATION_FAILED', `${req.method} ${req.path} takes no request body`, {
        details: { errors: [{ pointer: '', message: 'must be empty or {}' }] },
      }),
    );
  };
  return [onlyWithBody(requireJsonBody), onlyWithBody(parseJson), requireEmpty];
}
