import type { GraphQLError } from 'graphql';
import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { createGraphqlError } from '../errors.js';
import type { PersistedQueries } from './persisted-queries.js';
import { sha256Hex } from './persisted-queries.js';

/** The query text to run, and whether to register it once it has passed validation. */
export interface ResolvedQuery {
  query: string;
  /** Set when the client sent text with its hash (the APQ registration step). */
  register?: { hash: string };
  /** The hash the client named (GET may only run these). */
  persistedHash?: string;
}

/** Where query texts come from. */
export interface QuerySources {
  persisted: PersistedQueries;
  /** Allow-list mode: hash -> text of the manifest; nothing else runs. */
  allowList?: ReadonlyMap<string, string>;
}

const HASH = /^[0-9a-f]{64}$/;

/** Whether a request names a persisted query at all (`extensions` of `{}` or `null` does not). */
export function hasPersistedQuery(extensions: unknown): boolean {
  return (extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery !== undefined;
}

/**
 * The `extensions.persistedQuery` of a request, checked; undefined when absent. A malformed envelope
 * is a ProxyopsError (over HTTP a 400 whatever the Accept, as graphql-http answers a missing query);
 * the outcomes of the persisted-query protocol are GraphQL errors (200 under `application/json`).
 */
function readPersistedQuery(
  extensions: unknown,
): { hash: string } | GraphQLError | ProxyopsError | undefined {
  if (!hasPersistedQuery(extensions)) return undefined;
  const persisted = (extensions as { persistedQuery: unknown }).persistedQuery;
  const { version, sha256Hash } = (persisted ?? {}) as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1)
    return createGraphqlError('PERSISTED_QUERY_NOT_SUPPORTED', 'only persistedQuery version 1 is supported');
  if (typeof sha256Hash !== 'string' || !HASH.test(sha256Hash))
    return new ProxyopsError('BAD_REQUEST', 'persistedQuery.sha256Hash must be 64 lowercase hex digits');
  return { hash: sha256Hash };
}

/**
 * Finds the text a request runs, in the automatic-persisted-query protocol: a hash alone runs a
 * registered query (PERSISTED_QUERY_NOT_FOUND until it is registered); text with its hash registers
 * it. In allow-list mode only manifest operations run, by hash or by identical text.
 */
export async function resolveQuery(
  request: { query?: unknown; extensions?: unknown },
  sources: QuerySources,
): Promise<ResolvedQuery | GraphQLError | ProxyopsError> {
  const persisted = readPersistedQuery(request.extensions);
  if (persisted instanceof Error) return persisted;
  const text = typeof request.query === 'string' ? request.query : undefined;
  if (persisted && text !== undefined && sha256Hex(text) !== persisted.hash)
    return createGraphqlError('PERSISTED_QUERY_HASH_MISMATCH', 'the query text does not hash to sha256Hash');
  if (sources.allowList) {
    const hash = persisted?.hash ?? (text === undefined ? undefined : sha256Hex(text));
    const allowed = hash === undefined ? undefined : sources.allowList.get(hash);
    if (allowed === undefined)
      return createGraphqlError(
        'PERSISTED_QUERY_NOT_ALLOWED',
        'only operations of the allow-list manifest may run on this server',
      );
    return { query: allowed, ...(persisted ? { persistedHash: persisted.hash } : {}) };
  }
  if (!persisted) {
    if (text === undefined) return new ProxyopsError('BAD_REQUEST', 'the request has no query');
    return { query: text };
  }
  if (text !== undefined) return { query: text, register: persisted, persistedHash: persisted.hash };
  const known = await sources.persisted.find(persisted.hash);
  if (known === undefined) return createGraphqlError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
  return { query: known, persistedHash: persisted.hash };
}
