import type { KeyObject } from 'node:crypto';
import type { Caller } from '../resources/context.js';
import { toVerificationKey, verifyTokenClaims, type VerifiedToken } from './tokens.js';

/** How many verified tokens a verifier remembers by default. */
export const TOKEN_CACHE_ENTRIES = 10_000;

/** Verifies bearer tokens, remembering the ones that passed; `cached` answers without awaiting. */
export interface TokenVerifier {
  /** The caller of a token verified before and still inside its validity window, else undefined. */
  cached(token: string): Caller | undefined;
  verify(token: string): Promise<Caller>;
}

/**
 * A verifier that runs the full HS256 check (jose: alg pinned, signature, iss, aud, exp, nbf) once
 * per distinct token string and then remembers its claims. A remembered token is keyed by its exact
 * bytes, signature included, so any change to it misses the cache; exp and nbf are checked again on
 * every use, as jose checks them. Only successes are remembered, the oldest evicted past `maxEntries`.
 */
export function createTokenVerifier(
  key: Uint8Array | KeyObject,
  maxEntries = TOKEN_CACHE_ENTRIES,
): TokenVerifier {
  const verified = new Map<string, VerifiedToken>();
  const cached = (token: string): Caller | undefined => {
    const entry = verified.get(token);
    if (!entry) return undefined;
    const now = Math.floor(Date.now() / 1000);
    // The same comparisons as jose's (no clock tolerance): expired at exp, not yet valid before nbf.
    if (entry.exp <= now || (entry.nbf !== undefined && entry.nbf > now)) {
      verified.delete(token);
      return undefined;
    }
    return entry.caller;
  };
  return {
    cached,
    async verify(token) {
      const hit = cached(token);
      if (hit) return hit;
      const entry = await verifyTokenClaims(token, key);
      if (verified.size >= maxEntries) verified.delete(verified.keys().next().value as string);
      verified.set(token, entry);
      return entry.caller;
    },
  };
}

const bySecret = new WeakMap<Uint8Array, TokenVerifier>();

/** The one verifier of a secret, so REST, GraphQL over HTTP and over WebSocket share what they verified. */
export function tokenVerifierFor(secret: Uint8Array): TokenVerifier {
  let verifier = bySecret.get(secret);
  if (!verifier) {
    verifier = createTokenVerifier(toVerificationKey(secret));
    bySecret.set(secret, verifier);
  }
  return verifier;
}
