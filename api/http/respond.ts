import type { Request, Response } from 'express';
import { sendAnswer, type HttpAnswer } from './answer.js';
import { toEtag } from './etag.js';
import type { RouteResult } from './routes.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Absolute URL of the next page: the same request with `cursor` replaced. */
function nextPageUrl(originalUrl: string, baseUrl: string, cursor: string): string {
  const url = new URL(originalUrl, baseUrl);
  url.searchParams.set('cursor', cursor);
  return `${baseUrl}${url.pathname}${url.search}`;
}

/**
 * Renders a resource function's result: 200 + ETag for one resource, 201 + Location for a created
 * one, 200 + `Link: rel="next"` for a page, 204 with no body for a deletion. Reads may be cached
 * privately but must be revalidated; answers to writes are not stored.
 */
export function renderResult(
  request: { method: string; originalUrl: string },
  result: RouteResult,
  baseUrl: string,
): HttpAnswer {
  const read = request.method === 'GET' || request.method === 'HEAD';
  const headers: Record<string, string> = { 'cache-control': read ? 'private, no-cache' : 'no-store' };
  const json = (status: number, data: unknown): HttpAnswer => ({
    status,
    headers: { ...headers, 'content-type': JSON_TYPE },
    body: JSON.stringify(data),
  });
  switch (result.kind) {
    case 'one':
      headers.etag = toEtag(result.value.version);
      return json(200, result.value.data);
    case 'created':
      headers.etag = toEtag(result.value.version);
      headers.location = result.value.data._links.self.href;
      return json(201, result.value.data);
    case 'page': {
      const self = `${baseUrl}${request.originalUrl}`;
      const cursor = result.page.nextCursor;
      const next = cursor === null ? null : nextPageUrl(request.originalUrl, baseUrl, cursor);
      if (next) headers.link = `<${next}>; rel="next"`;
      return json(200, {
        items: result.page.items,
        nextCursor: cursor,
        _links: { self: { href: self }, ...(next ? { next: { href: next } } : {}) },
      });
    }
    case 'none':
      return { status: 204, headers, body: '' };
  }
}

/** Writes a resource function's result (see renderResult). */
export function sendResult(req: Request, res: Response, result: RouteResult, baseUrl: string): void {
  sendAnswer(res, renderResult(req, result, baseUrl));
}
