import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../api/graphql/persisted/persisted-queries.js';
import { writeManifest } from '../../../api/graphql/persisted/write-manifest.js';
import type { Store } from '../../../api/store/store.js';
import { STORE_VARIANTS } from '../support/harness.js';
import { gql, gqlGet, startGraphqlApi, type GraphqlTestApi } from './support/graphql-api.js';

const ME = 'query Me($n: Int) { me { id name orders(last: $n) { status } } }';

describe.each(STORE_VARIANTS)('persisted queries and the allow-list ($name)', (variant) => {
  let api: GraphqlTestApi;
  let store: Store;
  let drop: () => Promise<void>;
  let dir: string;
  beforeAll(async () => {
    ({ store, drop } = await variant.open());
    api = await startGraphqlApi(store);
    dir = await mkdtemp(join(tmpdir(), 'proxyops-gql-'));
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
    await drop?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('APQ: hash alone is PersistedQueryNotFound, then POST registers it, then GET runs it on any instance', async () => {
    const user = await api.createUser('Persisted');
    const query = `${ME} # ${Math.random()}`;
    const persistedQuery = { version: 1, sha256Hash: sha256Hex(query) };
    const unknown = await gql(api, undefined, { token: user.token, extensions: { persistedQuery } });
    expect(unknown.status).toBe(200);
    expect(unknown.json().errors[0]).toMatchObject({
      message: 'PersistedQueryNotFound',
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', requestId: unknown.headers['x-request-id'] },
    });

    const registered = await gql(api, query, {
      token: user.token,
      extensions: { persistedQuery },
      variables: { n: 2 },
    });
    expect(registered.json().data.me).toEqual({ id: user.id, name: 'Persisted', orders: [] });
    const rows = await store.query<{ query: string }>(
      'SELECT query FROM graphql_persisted_queries WHERE sha256 = $1',
      [persistedQuery.sha256Hash],
    );
    expect(rows).toEqual([{ query }]);

    const byGet = await gqlGet(
      api,
      { extensions: { persistedQuery }, variables: { n: 2 } },
      { token: user.token },
    );
    expect(byGet.status).toBe(200);
    expect(byGet.headers['cache-control']).toBe('private, no-cache');
    expect(byGet.json().data.me.id).toBe(user.id);

    // A fresh instance has nothing in memory: it finds the query in the database.
    const other = await startGraphqlApi(store);
    try {
      const elsewhere = await gqlGet(other, { extensions: { persistedQuery } }, { token: user.token });
      expect(elsewhere.json().data.me.name).toBe('Persisted');
    } finally {
      await other.close();
    }
  });

  it('GET runs persisted queries only; a mutation is never run by GET; a wrong hash is refused', async () => {
    const text = await gqlGet(api, { query: '{ __typename }' });
    expect(text.status).toBe(400);
    expect(text.headers.allow).toBeUndefined();
    expect(text.json().errors[0].extensions.code).toBe('BAD_REQUEST');

    const mutation = 'mutation Cancel($id: ID!) { cancelOrder(id: $id) { id } }';
    const persistedQuery = { version: 1, sha256Hash: sha256Hex(mutation) };
    await gql(api, mutation, {
      extensions: { persistedQuery },
      variables: { id: 'x' },
      token: api.adminToken,
    });
    const viaGet = await gqlGet(
      api,
      { extensions: { persistedQuery }, variables: { id: 'x' } },
      { token: api.adminToken },
    );
    expect(viaGet.status).toBe(405);
    expect(viaGet.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    // graphql-http's own refusal, given the code and request id every other error has.
    expect(viaGet.headers['content-type']).toContain('application/json');
    expect(viaGet.json().errors[0]).toMatchObject({
      message: 'Cannot perform mutations over GET',
      extensions: { code: 'METHOD_NOT_ALLOWED', requestId: viaGet.headers['x-request-id'] },
    });

    const mismatch = await gql(api, '{ __typename }', {
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ me { id } }') } },
    });
    expect(mismatch.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    const invalid = '{ nope }';
    await gql(api, invalid, {
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(invalid) } },
    });
    const notStored = await store.query('SELECT 1 FROM graphql_persisted_queries WHERE sha256 = $1', [
      sha256Hex(invalid),
    ]);
    expect(notStored).toHaveLength(0);
  });

  it('allow-list mode: only manifest operations run, by hash or by identical text; anything else is rejected', async () => {
    await writeFile(join(dir, 'me.graphql'), `${ME}\n`);
    await writeFile(
      join(dir, 'orders.graphql'),
      'query Orders { me { orders(first: 1) { ...OrderBits } } }\nfragment OrderBits on Order { id status }\n',
    );
    const out = join(dir, 'manifest.json');
    const manifest = await writeManifest({ from: dir, out });
    expect(manifest.operations.map((o) => o.name)).toEqual(['Me', 'Orders']);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(manifest);
    const orders = manifest.operations.find((o) => o.name === 'Orders');
    expect(orders?.body).toContain('fragment OrderBits on Order');

    const locked = await startGraphqlApi(store, { config: { graphqlAllowList: out } });
    try {
      const user = await api.createUser('Allowed');
      const me = manifest.operations.find((o) => o.name === 'Me');
      const byHash = await gqlGet(
        locked,
        { extensions: { persistedQuery: { version: 1, sha256Hash: me?.id } }, variables: { n: 1 } },
        { token: user.token },
      );
      expect(byHash.json().data.me.name).toBe('Allowed');
      const byText = await gql(locked, orders?.body, { token: user.token });
      expect(byText.json().data.me.orders).toEqual([]);

      const other = await gql(locked, '{ __typename }');
      expect(other.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_ALLOWED');
      expect(other.json().data).toBeUndefined();
      const query = '{ me { id } }';
      const registration = await gql(locked, query, {
        token: user.token,
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(query) } },
      });
      expect(registration.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_ALLOWED');
    } finally {
      await locked.close();
    }
  });

  it('the manifest generator refuses an operation the schema rejects, naming file and line', async () => {
    const bad = await mkdtemp(join(tmpdir(), 'proxyops-gql-bad-'));
    try {
      await writeFile(join(bad, 'bad.graphql'), '\nquery Bad { me { nope } }\n');
      await expect(writeManifest({ from: bad, out: join(bad, 'm.json') })).rejects.toThrow(
        /bad\.graphql:2: .*nope/,
      );
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });
});
