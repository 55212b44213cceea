import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { REQUEST_ID_PATTERN } from '../../proxy-config/core/render/request-id.js';
import type { TrustFunction } from './trust-proxy.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: a trusted proxy's X-Request-ID when well formed, else a fresh UUID. */
    id: string;
    /** A logger whose lines carry `requestId`; made on first use. */
    log: Logger;
  }
}

const REQUEST_ID = new RegExp(REQUEST_ID_PATTERN);

/** The proxy's X-Request-ID when it is well formed (the pattern nginx checks too), otherwise a fresh UUID. */
export function pickRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

const BASE_LOGGER = Symbol('base logger');
const CHILD_LOGGER = Symbol('child logger');

interface LoggedRequest {
  id: string;
  [BASE_LOGGER]?: Logger;
  [CHILD_LOGGER]?: Logger;
}

// On Express's request prototype (its documented extension point), once: defining `req.log` on each
// request instead made every request object a slower shape of its own. The prototype is shared by every
// Express app in the process, so code that assigns `req.log` itself (as pino-http does) still can.
Object.defineProperty(express.request, 'log', {
  configurable: true,
  get(this: LoggedRequest) {
    return (this[CHILD_LOGGER] ??= this[BASE_LOGGER]?.child({ requestId: this.id }));
  },
  set(this: LoggedRequest, value: Logger) {
    Object.defineProperty(this, 'log', { value, writable: true, configurable: true, enumerable: true });
  },
});

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
    const started = performance.now();
    // Read now: once the client has gone, the socket no longer knows its peer.
    const remoteAddress = req.socket.remoteAddress;
    // Like X-Forwarded-For, the id is taken only from a configured proxy: a client that reaches the
    // API directly cannot plant an id in its log.
    const trusted = (req.app.get('trust proxy fn') as TrustFunction)(remoteAddress, 0);
    const requestId = trusted ? pickRequestId(req.headers['x-request-id']) : randomUUID();
    res.setHeader('X-Request-ID', requestId);
    req.id = requestId;
    (req as unknown as LoggedRequest)[BASE_LOGGER] = logger;
    const line = () => ({
      requestId,
      req: { method: req.method, url: req.originalUrl, remoteAddress },
      // Express's default 200 is no answer: a client that left before the headers got none.
      res: { statusCode: res.headersSent ? res.statusCode : null },
      responseTime: Math.round(performance.now() - started),
    });
    let finished = false;
    // `on`, not `once`: each fires once anyway, and `once` wraps and later removes every listener.
    res.on('finish', () => {
      finished = true;
      logger[levelOf(res.statusCode)](line(), 'request completed');
    });
    // Not `writableFinished`: an answer written to a socket the client already closed counts as
    // written, yet never reaches 'finish'.
    res.on('close', () => {
      if (!finished) logger.warn(line(), 'request aborted');
    });
    next();
  };
}
