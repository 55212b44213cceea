import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Caller } from './context.js';

/** True when `caller` may read or change data that belongs to `ownerId`. */
export function isSelfOrAdmin(caller: Caller, ownerId: string): boolean {
  return caller.role === 'admin' || caller.id === ownerId;
}

/** Throws FORBIDDEN (403) unless the caller owns the data or is an admin. */
export function assertSelfOrAdmin(caller: Caller, ownerId: string, what: string): void {
  if (!isSelfOrAdmin(caller, ownerId))
    throw new ProxyopsError('FORBIDDEN', `${what} belongs to another user`);
}

/** Throws FORBIDDEN (403) unless the caller is an admin. */
export function assertAdmin(caller: Caller, action: string): void {
  if (caller.role !== 'admin') throw new ProxyopsError('FORBIDDEN', `only an admin may ${action}`);
}

/** Throws PRECONDITION_FAILED (409) when the client's If-Match version is not the current one. */
export function assertVersion(expected: readonly number[] | undefined, current: number, what: string): void {
  if (expected !== undefined && !expected.includes(current))
    throw new ProxyopsError(
      'PRECONDITION_FAILED',
      `${what} changed since it was read (If-Match does not match the current ETag); read it again`,
    );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a textual UUID; other ids never reach the database (they name nothing). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
