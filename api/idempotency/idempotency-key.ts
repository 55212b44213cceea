import { createHash } from 'node:crypto';
import { ProxyopsError } from '../../proxy-config/core/errors.js';

/** Longest key accepted; a UUID (the draft's recommendation) has 36 characters. */
export const MAX_KEY_LENGTH = 255;

const invalid = (why: string) =>
  new ProxyopsError('IDEMPOTENCY_KEY_INVALID', `the Idempotency-Key header ${why}`);

/** A character of a bare token: visible ASCII but `"`, `\` and the comma that separates list members. */
const TOKEN_CHAR = '[\\x21\\x23-\\x2B\\x2D-\\x5B\\x5D-\\x7E]';
/** A character of a quoted string: printable ASCII, `"` and `\` only escaped. */
const QUOTED_CHAR = '(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\["\\\\])';

/**
 * Every header value the server takes, and only those: the OpenAPI document states it as the
 * header's `pattern`, and the parser below decides by it, so the two cannot drift apart.
 */
export const IDEMPOTENCY_KEY_PATTERN = `^(?:${TOKEN_CHAR}{1,${MAX_KEY_LENGTH}}|"${QUOTED_CHAR}{1,${MAX_KEY_LENGTH}}")$`;

/** Longest header value the pattern takes: a quoted key of escaped characters only. */
export const MAX_HEADER_LENGTH = 2 + 2 * MAX_KEY_LENGTH;

const KEY_FORM = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** Why a value is refused, for the problem's detail: the first rule it breaks. */
const REFUSALS: ReadonlyArray<{ test: (value: string, key: string) => boolean; why: string }> = [
  { test: (_value, key) => key.length === 0, why: 'is empty' },
  { test: (value) => /[^\x20-\x7e]/.test(value), why: 'may hold only printable ASCII characters' },
  {
    test: (value) => !value.startsWith('"') && value.includes(','),
    why: 'holds two values: send one key (a comma is taken only inside a quoted string)',
  },
  { test: (_value, key) => key.length > MAX_KEY_LENGTH, why: `is longer than ${MAX_KEY_LENGTH} characters` },
];

/**
 * The key of an `Idempotency-Key` header, or undefined when there is none. The IETF httpapi draft
 * makes it a Structured Field String (`"8e03978e-..."`); a bare token (`8e03978e-...`), as many
 * clients send it, is read as the same key. Empty, over-long, non-ASCII or repeated headers, and two
 * values in one (`x,y`), are IDEMPOTENCY_KEY_INVALID (400).
 */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // Only the optional white space HTTP allows around a field value (what Node leaves of it).
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  const key = quoted ? value.slice(1, -1).replace(/\\(["\\])/g, '$1') : value;
  if (KEY_FORM.test(value)) return key;
  const refusal = REFUSALS.find((r) => r.test(value, key));
  throw invalid(
    refusal?.why ?? 'must be a quoted string ("...") or a single token of visible ASCII characters',
  );
}

/**
 * The fingerprint of a request: a SHA-256 over what makes it this request (method, target,
 * preconditions, body). The same key with another fingerprint is a different request (422).
 */
export function fingerprintRequest(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON value of a body, or its bytes when it is no UTF-8 JSON text (the request is refused then). */
function bodyValue(body: Buffer): unknown {
  try {
    return { json: JSON.parse(UTF8.decode(body)) as unknown };
  } catch {
    return { bytes: body.toString('base64') };
  }
}

/**
 * The fingerprint of a request whose body arrives as bytes (POST /graphql), taken over the body's
 * JSON value as REST's is, so that white space and escapes do not make a retry another request.
 * `former` is the fingerprint of the body's bytes, which versions up to 0.1 stored: it is accepted
 * too, so that a key stored before an upgrade still replays (it can go once such keys have expired).
 */
export function fingerprintJsonRequest(
  method: string,
  target: string,
  body: Buffer | null,
): { fingerprint: string; former: string } {
  return {
    fingerprint: fingerprintRequest([method, target, body ? bodyValue(body) : null]),
    former: fingerprintRequest([method, target, body?.toString('base64') ?? null]),
  };
}
