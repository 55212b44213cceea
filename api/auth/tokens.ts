import { createSecretKey, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Caller, Role } from '../resources/context.js';
import { isUuid } from '../resources/auth-rules.js';

/** The development signing secret; the API refuses to start with it when NODE_ENV=production. */
export const DEVELOPMENT_JWT_SECRET = 'proxyops-development-secret-not-for-production';

const ISSUER = 'proxyops';
const AUDIENCE = 'proxyops-api';
const MIN_SECRET_BYTES = 32;

/**
 * The HS256 signing secret from PROXYOPS_JWT_SECRET, or the development default. In production a
 * missing, default or short secret is refused, so a forged dev token can never pass there.
 */
export function resolveJwtSecret(env: NodeJS.ProcessEnv = process.env): Uint8Array {
  const secret = env.PROXYOPS_JWT_SECRET || DEVELOPMENT_JWT_SECRET;
  if (env.NODE_ENV === 'production') {
    if (secret === DEVELOPMENT_JWT_SECRET)
      throw new ProxyopsError(
        'CONFIG_INVALID',
        'NODE_ENV=production needs PROXYOPS_JWT_SECRET; the development default is refused',
      );
    if (Buffer.byteLength(secret) < MIN_SECRET_BYTES)
      throw new ProxyopsError(
        'CONFIG_INVALID',
        `PROXYOPS_JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes`,
      );
  }
  return new TextEncoder().encode(secret);
}

/** Signs a bearer token for `caller`, valid for `ttlSeconds`. */
export async function createToken(
  caller: Caller,
  secret: Uint8Array,
  ttlSeconds = 12 * 3600,
): Promise<string> {
  return new SignJWT({ role: caller.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(caller.id)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(secret);
}

/** The secret as a key object, imported once: importing it on every verification is most of its cost. */
export function toVerificationKey(secret: Uint8Array): KeyObject {
  return createSecretKey(secret);
}

/** A verified token's caller and the time window (epoch seconds) in which it stays valid. */
export interface VerifiedToken {
  caller: Caller;
  exp: number;
  nbf?: number;
}

/** Verifies a bearer token; any fault is UNAUTHENTICATED (401) with a reason fit for WWW-Authenticate. */
export async function verifyTokenClaims(token: string, key: Uint8Array | KeyObject): Promise<VerifiedToken> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['sub', 'exp'],
    });
    const role = payload.role;
    if (role !== 'user' && role !== 'admin') throw new Error('the token names no known role');
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('the token names no subject');
    // A user is a stored user, named by its id; an admin token may name any operator.
    if (role === 'user' && !isUuid(payload.sub)) throw new Error('the token subject is not a user id');
    return {
      caller: { id: payload.sub, role: role as Role },
      exp: payload.exp as number,
      ...(payload.nbf === undefined ? {} : { nbf: payload.nbf }),
    };
  } catch (error) {
    const reason = error instanceof joseErrors.JWTExpired ? 'the token has expired' : 'the token is invalid';
    throw new ProxyopsError('UNAUTHENTICATED', reason, { cause: error, details: { tokenError: true } });
  }
}
