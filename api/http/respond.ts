import type { Request, Response } from 'express';
import { toEtag } from './etag.js';
import type { RouteResult } from './routes.js';

/** Absolute URL of the next page: the same request with `cursor` replaced. */
function nextPageUrl(req: Request, baseUrl: string, cursor: string): string {
  const url = new URL(req.originalUrl, baseUrl);
  url.searchParams.set('cursor', cursor);
  return `${baseUrl}${url.pathname}${url.search}`;
}

/**
 * Writes a resource function's result: 200 + ETag for one resource, 201 + Location for a created
 * one, 200 + `Link: rel="next"` for a page, 204 with no body for a deletion. Reads may be cached
 * privately but must be revalidated; answers to writes are not stored.
 */
export function sendResult(req: Request, res: Response, result: RouteResult, baseUrl: string): void {
  const cacheControl = req.method === 'GET' || req.method === 'HEAD' ? 'private, no-cache' : 'no-store';
  res.setHeader('Cache-Control', cacheControl);
  switch (result.kind) {
    case 'one':
      res.setHeader('ETag', toEtag(result.value.version));
      res.status(200).json(result.value.data);
      return;
    case 'created':
      res.setHeader('ETag', toEtag(result.value.version));
      res.location(result.value.data._links.self.href);
      res.status(201).json(result.value.data);
      return;
    case 'page': {
      const self = `${baseUrl}${req.originalUrl}`;
      const next = result.page.nextCursor === null ? null : nextPageUrl(req, baseUrl, result.page.nextCursor);
      if (next) res.setHeader('Link', `<${next}>; rel="next"`);
      res.status(200).json({
        items: result.page.items,
        nextCursor: result.page.nextCursor,
        _links: { self: { href: self }, ...(next ? { next: { href: next } } : {}) },
      });
      return;
    }
    case 'none':
      res.status(204).end();
  }
}
