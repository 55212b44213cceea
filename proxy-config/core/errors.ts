/** The one error type of proxyops: a stable `code`, a human message, and the original fault as `cause`. */
export class ProxyopsError extends Error {
  readonly code: string;
  readonly details: unknown;

  constructor(code: string, message: string, options: { cause?: unknown; details?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProxyopsError';
    this.code = code;
    this.details = options.details;
  }
}

/** True when `value` is a ProxyopsError (also across module copies, by shape). */
export function isProxyopsError(value: unknown): value is ProxyopsError {
  return (
    value instanceof ProxyopsError ||
    (value instanceof Error &&
      typeof (value as { code?: unknown }).code === 'string' &&
      value.name === 'ProxyopsError')
  );
}
