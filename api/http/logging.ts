import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The proxy's X-Request-ID when it is a sane token, otherwise a fresh UUID. */
export function pickRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

/**
 * Access logging and the request id: every log line of a request (pino-http's and `req.log`'s)
 * carries `requestId`, and the response echoes it as X-Request-ID.
 */
export function createHttpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const id = pickRequestId(req.headers['x-request-id']);
      res.setHeader('X-Request-ID', id);
      return id;
    },
    customLogLevel(_req, res, error) {
      if (error || (res.statusCode >= 500 && res.statusCode !== 503)) return 'error';
      return res.statusCode >= 400 ? 'warn' : 'info';
    },
    // pino-http invents an Error for every 5xx; a deliberate 503 (draining) has no stack worth logging.
    customErrorObject: (_req, res, _error, value: Record<string, unknown>) =>
      (res as ServerResponse & { err?: unknown }).err ? value : { ...value, err: undefined },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
      }),
    },
    // req.log lines carry only the id, under the same key as the access line's.
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
  });
}
