/** The one error type of proxyops: a stable `code`, a human message, and the original fault as `cause`. */
export class ProxyopsError extends Error {
  readonly code: string;
  readonly details: unknown;
  /**
   * Each line of the message stands alone (one per host that failed): the CLI prefixes every line
   * alike. Otherwise lines after the first belong to the first (nginx output, a spec's findings).
   */
  readonly perLine: boolean;

  constructor(
    code: string,
    message: string,
    options: { cause?: unknown; details?: unknown; perLine?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProxyopsError';
    this.code = code;
    this.details = options.details;
    this.perLine = options.perLine === true;
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
