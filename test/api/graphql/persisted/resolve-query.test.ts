import { describe, expect, it } from 'vitest';
import { sha256Hex, type PersistedQueries } from '../../../../api/graphql/persisted/persisted-queries.js';
import { resolveQuery } from '../../../../api/graphql/persisted/resolve-query.js';

function memoryQueries(entries: Record<string, string> = {}): PersistedQueries {
  const map = new Map(Object.entries(entries));
  return {
    find: async (hash) => map.get(hash),
    register: async (hash, query) => void map.set(hash, query),
  };
}

const QUERY = '{ me { id } }';
const HASH = sha256Hex(QUERY);
const pq = (sha256Hash: string, version = 1) => ({ persistedQuery: { version, sha256Hash } });
// A GraphQL error carries its code in extensions; a ProxyopsError (answered 400 by the HTTP layer) carries it itself.
const codeOf = (value: unknown) =>
  (value as { extensions?: { code?: string } }).extensions?.code ?? (value as { code?: string }).code;

describe('resolveQuery (automatic persisted queries)', () => {
  it('runs plain text as it is', async () => {
    expect(await resolveQuery({ query: QUERY }, { persisted: memoryQueries() })).toEqual({ query: QUERY });
  });

  it('a hash alone: PERSISTED_QUERY_NOT_FOUND until registered, then the stored text', async () => {
    const unknown = await resolveQuery({ extensions: pq(HASH) }, { persisted: memoryQueries() });
    expect(codeOf(unknown)).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((unknown as Error).message).toBe('PersistedQueryNotFound');
    const known = await resolveQuery(
      { extensions: pq(HASH) },
      { persisted: memoryQueries({ [HASH]: QUERY }) },
    );
    expect(known).toEqual({ query: QUERY, persistedHash: HASH });
  });

  it('text with its hash asks for registration; a hash that does not match the text is refused', async () => {
    expect(
      await resolveQuery({ query: QUERY, extensions: pq(HASH) }, { persisted: memoryQueries() }),
    ).toEqual({
      query: QUERY,
      register: { hash: HASH },
      persistedHash: HASH,
    });
    const mismatch = await resolveQuery(
      { query: '{ __typename }', extensions: pq(HASH) },
      { persisted: memoryQueries() },
    );
    expect(codeOf(mismatch)).toBe('PERSISTED_QUERY_HASH_MISMATCH');
  });

  it('refuses other versions and malformed hashes', async () => {
    expect(codeOf(await resolveQuery({ extensions: pq(HASH, 2) }, { persisted: memoryQueries() }))).toBe(
      'PERSISTED_QUERY_NOT_SUPPORTED',
    );
    expect(codeOf(await resolveQuery({ extensions: pq('ABC') }, { persisted: memoryQueries() }))).toBe(
      'BAD_REQUEST',
    );
  });

  it('allow-list mode: manifest operations by hash or identical text only, and never a registration', async () => {
    const allowList = new Map([[HASH, QUERY]]);
    const sources = { persisted: memoryQueries(), allowList };
    expect(await resolveQuery({ extensions: pq(HASH) }, sources)).toEqual({
      query: QUERY,
      persistedHash: HASH,
    });
    expect(await resolveQuery({ query: QUERY }, sources)).toEqual({ query: QUERY });
    expect(codeOf(await resolveQuery({ query: '{ __typename }' }, sources))).toBe(
      'PERSISTED_QUERY_NOT_ALLOWED',
    );
    const other = '{ me { name } }';
    expect(codeOf(await resolveQuery({ query: other, extensions: pq(sha256Hex(other)) }, sources))).toBe(
      'PERSISTED_QUERY_NOT_ALLOWED',
    );
  });
});
