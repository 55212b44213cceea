import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { ResourceLimits } from './context.js';
import { CURSOR_PATTERN } from './schemas.js';

const CURSOR = new RegExp(CURSOR_PATTERN);

/** One page of a collection; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Paging input after validation. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/** The position after which a page starts, and how many rows to return. */
export interface PageWindow {
  after: string;
  limit: number;
}

/**
 * Encodes a keyset position (a `seq` value) as a cursor: its decimal digits. The OpenAPI document
 * states the form (`CURSOR_PATTERN`), and every value of that form is one the server accepts,
 * `0` (before the first row) included, so a client or a generator that follows the document never
 * meets a 400 on a cursor.
 */
export function encodeCursor(position: string): string {
  return position;
}

/** Decodes a cursor of `CURSOR_PATTERN` to its position; anything else is BAD_PARAMETER (400). */
export function decodeCursor(cursor: string): string {
  if (!CURSOR.test(cursor))
    throw new ProxyopsError('BAD_PARAMETER', 'cursor is not one this API issued', {
      details: { errors: [{ pointer: '/cursor', message: 'is not a cursor this API issued' }] },
    });
  // Leading zeros name the same position; the store compares numbers.
  return String(BigInt(cursor));
}

/** The keyset window of a page request. */
export function planPage(query: PageQuery, limits: ResourceLimits): PageWindow {
  return {
    after: query.cursor === undefined ? '0' : decodeCursor(query.cursor),
    limit: query.limit ?? limits.pageSizeDefault,
  };
}

/** Cuts the `limit + 1` rows fetched into a page and the cursor of the next one. */
export function toPage<Row extends { seq: string | number }, T>(
  rows: readonly Row[],
  window: PageWindow,
  view: (row: Row) => T,
): Page<T> {
  const more = rows.length > window.limit;
  const kept = more ? rows.slice(0, window.limit) : rows;
  const last = kept[kept.length - 1];
  return {
    items: kept.map(view),
    nextCursor: more && last ? encodeCursor(String(last.seq)) : null,
  };
}
