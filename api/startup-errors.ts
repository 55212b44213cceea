import { ProxyopsError } from '../proxy-config/core/errors.js';

/** A failed listen, said as what to do: a busy port names the option that picks another. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new ProxyopsError(
      'PORT_IN_USE',
      `cannot listen on ${where}: another process uses that port; stop it, or choose another port with --port (or PROXYOPS_PORT)`,
      { cause: error },
    );
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
    return new ProxyopsError(
      'LISTEN_FAILED',
      `cannot listen on ${where} (${code}): ${code === 'EACCES' ? 'ports below 1024 need root; choose a port of 1024 or more with --port' : 'that address is not on this machine; choose a local one with --host'}`,
      { cause: error },
    );
  return error;
}

/** Errors that mean the database server could not be reached or refused us, not a fault in our SQL. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
]);
/** PostgreSQL's codes for a refused login or a database that does not exist. */
const REFUSED = new Map([
  ['28P01', 'the password was refused'],
  ['28000', 'the login was refused'],
  ['3D000', 'that database does not exist'],
]);

/** The database URL without its password, to name in a message. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(DATABASE_URL is not a URL)';
  }
}

/** A failed start of the store said as what to do, when the database was the cause. */
export function databaseError(error: unknown, url: string): unknown {
  // The store reports an unreachable database as DATABASE_UNAVAILABLE (a 503 to a client); at start
  // the driver's own error under it says what to fix.
  const root =
    error instanceof ProxyopsError && error.code === 'DATABASE_UNAVAILABLE' && error.cause !== undefined
      ? error.cause
      : error;
  const { code } = root as NodeJS.ErrnoException;
  const errors = (root as { errors?: Array<NodeJS.ErrnoException> }).errors ?? [];
  const systemCode = [code, ...errors.map((e) => e.code)].find((c) => c !== undefined && UNREACHABLE.has(c));
  const refused = code === undefined ? undefined : REFUSED.get(code);
  if (systemCode === undefined && refused === undefined) return error;
  return new ProxyopsError(
    'DATABASE_UNREACHABLE',
    `cannot use the database at ${redactUrl(url)} (DATABASE_URL): ${refused ?? `cannot connect (${systemCode})`}; start it, or fix DATABASE_URL`,
    { cause: error },
  );
}
