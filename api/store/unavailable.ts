import { ProxyopsError } from '../../proxy-config/core/errors.js';

/** Socket errors meaning the server cannot be reached or dropped the connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is not there for us: class 08 (connection exception), shutting down or
 * starting (57P01-57P03), out of connections (53300), and a statement stopped by statement_timeout
 * (57014) -- the server did not answer in time, which the client can only retry.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300|57014)$/;

/** What node-postgres says, without a code, when a connection or a reply did not come in time. */
const DRIVER_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not queryable|Connection ended unexpectedly/;

/** True when `error` means the database is unavailable (unreachable, stalled, restarting), not a bad statement. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  return DRIVER_MESSAGES.test(error.message);
}

/**
 * The store's one translation of driver failures: an unavailable database becomes
 * DATABASE_UNAVAILABLE (503 + Retry-After over HTTP); anything else (a constraint, a syntax error)
 * passes unchanged for the resource code that knows what it means.
 */
export function toStoreError(error: unknown): unknown {
  if (!isDatabaseUnavailable(error)) return error;
  return new ProxyopsError('DATABASE_UNAVAILABLE', 'the database is unavailable; retry later', {
    cause: error,
  });
}
