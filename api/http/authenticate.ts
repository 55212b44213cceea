import type { RequestHandler } from 'express';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { tokenVerifierFor } from '../auth/token-cache.js';
import type { Caller } from '../resources/context.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The verified caller, set by `authenticate`. */
    caller?: Caller;
  }
}

/** Requires `Authorization: Bearer <JWT>`; a missing or bad token is 401 with WWW-Authenticate. */
export function authenticate(secret: Uint8Array): RequestHandler {
  const tokens = tokenVerifierFor(secret);
  return (req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
    if (!match?.[1]) {
      return next(
        new ProxyopsError(
          'UNAUTHENTICATED',
          header ? 'the Authorization header is not a bearer token' : 'this resource needs a bearer token',
        ),
      );
    }
    // A token seen before is answered synchronously: no HMAC, no trip through the thread pool.
    const known = tokens.cached(match[1]);
    if (known) {
      req.caller = known;
      return next();
    }
    tokens.verify(match[1]).then(
      (caller) => {
        req.caller = caller;
        next();
      },
      (error: unknown) => next(error),
    );
  };
}
