import { createHash } from 'node:crypto';
import { ProxyopsError } from '../../proxy-config/core/errors.js';

/** Longest key accepted; a UUID (the draft's recommendation) has 36 characters. */
export const MAX_KEY_LENGTH = 255;

const invalid = (why: string) =>
  new ProxyopsError('IDEMPOTENCY_KEY_INVALID', `the Idempotency-Key header ${why}`);

/**
 * The key of an `Idempotency-Key` header, or undefined when there is none. The IETF httpapi draft
 * makes it a Structured Field String (`"8e03978e-..."`); a bare token (`8e03978e-...`), as many
 * clients send it, is read as the same key. Empty, over-long, non-ASCII or repeated headers are
 * IDEMPOTENCY_KEY_INVALID (400).
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(value);
  const key = quoted ? (quoted[1] ?? '').replace(/\\(["\\])/g, '$1') : value;
  if (!quoted && !/^[!#-[\]-~]*$/.test(value))
    throw invalid('must be a quoted string ("...") or a single token of visible ASCII characters');
  if (key.length === 0) throw invalid('is empty');
  if (key.length > MAX_KEY_LENGTH) throw invalid(`is longer than ${MAX_KEY_LENGTH} characters`);
  if (!/^[\x20-\x7e]+$/.test(key)) throw invalid('may hold only printable ASCII characters');
  return key;
}

/**
 * The fingerprint of a request: a SHA-256 over what makes it this request (method, target,
 * preconditions, body). The same key with another fingerprint is a different request (422).
 */
export function fingerprintRequest(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
