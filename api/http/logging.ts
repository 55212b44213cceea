import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the proxy's X-Request-ID when sane, else a fresh UUID. */
    id: string;
    /** A logger whose lines carry `requestId`; made on first use. */
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The proxy's X-Request-ID when it is a sane token, otherwise a fresh UUID. */
export function pickRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

/** An access line's level: faults at error (a deliberate 503 while draining is not one), client errors at warn. */
function levelOf(status: number): 'error' | 'warn' | 'info' {
  if (status >= 500 && status !== 503) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

/**
 * Access logging and the request id: one line per request (`request completed`, or `request aborted`
 * when the client left first) with `requestId`, method, URL, client address, status and time in ms;
 * `req.log` lines carry the same `requestId`; the response echoes it as X-Request-ID.
 * Written here rather than with pino-http, whose per-request child logger and serializers cost a
 * fifth of the API's throughput in `npm run bench:api` (docs/benchmarks.md, "API").
 */
export function createHttpLogger(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = pickRequestId(req.headers['x-request-id']);
    const started = performance.now();
    // Read now: once the client has gone, the socket no longer knows its peer.
    const remoteAddress = req.socket.remoteAddress;
    res.setHeader('X-Request-ID', requestId);
    req.id = requestId;
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      get: () => (child ??= logger.child({ requestId })),
    });
    const line = () => ({
      requestId,
      req: { method: req.method, url: req.originalUrl, remoteAddress },
      // Express's default 200 is no answer: a client that left before the headers got none.
      res: { statusCode: res.headersSent ? res.statusCode : null },
      responseTime: Math.round(performance.now() - started),
    });
    let finished = false;
    res.once('finish', () => {
      finished = true;
      logger[levelOf(res.statusCode)](line(), 'request completed');
    });
    // Not `writableFinished`: an answer written to a socket the client already closed counts as
    // written, yet never reaches 'finish'.
    res.once('close', () => {
      if (!finished) logger.warn(line(), 'request aborted');
    });
    next();
  };
}
