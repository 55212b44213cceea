import { randomUUID } from 'node:crypto';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Store } from '../store/store.js';
import { storeInTransaction } from '../store/transaction-store.js';

/** A response as stored with its key and replayed on a retry. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One keyed request: whose key (keys are scoped per caller), the key, and the request's fingerprint. */
export interface KeyedRequest {
  owner: string;
  key: string;
  fingerprint: string;
  /** Fingerprints an earlier version computed for this same request, accepted as `fingerprint`. */
  former?: readonly string[];
}

/** How long a key is remembered, and how long an attempt holds it before another may take over. */
export interface IdempotencyPolicy {
  ttlMs: number;
  leaseMs: number;
}

/** What `runOnce` gives back: the response, and whether it is a replay of an earlier request's. */
export interface RunOnceResult {
  response: StoredResponse;
  replayed: boolean;
}

/** A response that must not be stored (a fault, a dependency out): the key is released for a retry. */
class NotKept extends Error {
  constructor(readonly response: StoredResponse) {
    super('response not kept');
  }
}

const CLAIM_SQL = `
  WITH swept AS (
    DELETE FROM idempotency_keys WHERE owner = $1 AND key <> $2 AND expires_at <= now()
  )
  INSERT INTO idempotency_keys (owner, key, fingerprint, attempt, locked_until, expires_at)
  VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond')
  ON CONFLICT (owner, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, attempt = EXCLUDED.attempt, status = NULL, headers = NULL,
    body = NULL, created_at = now(), locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
  WHERE idempotency_keys.expires_at <= now()
     OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= now()
         AND idempotency_keys.fingerprint = ANY($7::text[]))
  RETURNING attempt`;

interface KeyRow {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

/**
 * Runs `work` at most once per key (the IETF httpapi Idempotency-Key draft), over any protocol:
 * - a new key is claimed (a committed row, so every instance sees it in flight), then `work` runs in
 *   one transaction with the recording of its response: either both are committed or neither is, so
 *   a retry after any failure -- a lost answer, a crashed instance -- never does the work twice;
 * - a repeat with the same fingerprint gets the stored response (`replayed`), or 409
 *   IDEMPOTENCY_KEY_IN_FLIGHT while the first is still running;
 * - the same key with another fingerprint is 422 IDEMPOTENCY_KEY_REUSED.
 * An error response (status >= 400) is stored with its writes undone. A response `keep` refuses, or a
 * thrown error, stores nothing and releases the key. An attempt that outlives its lease loses the key
 * to a retry and then commits nothing.
 */
export async function runOnce(
  store: Store,
  request: KeyedRequest,
  policy: IdempotencyPolicy,
  work: (store: Store) => Promise<StoredResponse>,
  keep: (response: StoredResponse) => boolean = (response) => response.status < 500,
): Promise<RunOnceResult> {
  const { owner, key, fingerprint } = request;
  const attempt = randomUUID();
  const claimed = await store.query(CLAIM_SQL, [
    owner,
    key,
    fingerprint,
    attempt,
    policy.leaseMs,
    policy.ttlMs,
    sameRequest(request),
  ]);
  if (claimed.length === 0) return { response: await storedResponse(store, request), replayed: true };
  try {
    const response = await store.transaction(async (tx) => {
      await tx.query('SAVEPOINT idempotent_work');
      const answered = await work(storeInTransaction(tx, store.kind));
      if (!keep(answered)) throw new NotKept(answered);
      if (answered.status >= 400) await tx.query('ROLLBACK TO SAVEPOINT idempotent_work');
      const recorded = await tx.query(
        `UPDATE idempotency_keys SET status = $4, headers = $5::jsonb, body = $6, locked_until = now()
         WHERE owner = $1 AND key = $2 AND attempt = $3 AND status IS NULL RETURNING 1`,
        [owner, key, attempt, answered.status, JSON.stringify(answered.headers), answered.body],
      );
      if (recorded.length === 0) throw inFlight('the key was taken over by a retry after its lease ran out');
      return answered;
    });
    return { response, replayed: false };
  } catch (error) {
    await store
      .query(
        'DELETE FROM idempotency_keys WHERE owner = $1 AND key = $2 AND attempt = $3 AND status IS NULL',
        [owner, key, attempt],
      )
      .catch(() => undefined);
    if (error instanceof NotKept) return { response: error.response, replayed: false };
    throw error;
  }
}

function inFlight(detail: string): ProxyopsError {
  return new ProxyopsError('IDEMPOTENCY_KEY_IN_FLIGHT', detail, { details: { retryAfterSeconds: 1 } });
}

/** Every fingerprint that names this request. */
const sameRequest = (request: KeyedRequest) => [request.fingerprint, ...(request.former ?? [])];

/** The response stored under a key someone else holds, or why there is none to give. */
async function storedResponse(store: Store, request: KeyedRequest): Promise<StoredResponse> {
  const [row] = await store.query<KeyRow>(
    'SELECT fingerprint, status, headers, body FROM idempotency_keys WHERE owner = $1 AND key = $2',
    [request.owner, request.key],
  );
  if (row && !sameRequest(request).includes(row.fingerprint))
    throw new ProxyopsError(
      'IDEMPOTENCY_KEY_REUSED',
      'this Idempotency-Key was used for a different request; a key may be reused only with the same method, target and body',
    );
  // No row: the first request has just failed and released the key; the client may retry at once.
  if (!row || row.status === null)
    throw inFlight('a request with this Idempotency-Key is still being processed; retry after it finishes');
  return { status: row.status, headers: row.headers ?? {}, body: row.body ?? '' };
}
