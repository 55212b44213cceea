import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../../api/store/create-store.js';
import type { Store } from '../../../api/store/store.js';
import { gql, startGraphqlApi, wsClient, type GraphqlTestApi } from './support/graphql-api.js';

/** The fragment bomb: each level spreads the one below twice, 2^levels names in under 1 KB. */
function fragmentBomb(levels: number): string {
  const fragments = [
    'fragment F0 on User{name}',
    ...Array.from({ length: levels }, (_, i) => `fragment F${i + 1} on User{...F${i} ...F${i}}`),
  ];
  return `{ me { ...F${levels} } } ${fragments.join(' ')}`;
}

const ABUSE: Array<{ name: string; query: string; code: string }> = [
  { name: 'fragment bomb, 23 levels (953 bytes)', query: fragmentBomb(23), code: 'COST_LIMIT' },
  { name: 'fragment bomb, 30 levels', query: fragmentBomb(30), code: 'COST_LIMIT' },
  {
    name: 'fragment cycle',
    query: '{ me { ...A } } fragment A on User { name ...B } fragment B on User { ...A }',
    code: 'FRAGMENT_CYCLE',
  },
  {
    name: 'deep nesting',
    query: `{ me { ${'orders(first: 1) { user { '.repeat(20)}id${' } }'.repeat(20)} } }`,
    code: 'DEPTH_LIMIT',
  },
  {
    name: 'many aliases',
    query: `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: me { id }`).join(' ')} }`,
    code: 'ALIAS_LIMIT',
  },
  {
    name: 'many directives',
    query: `{ me { id ${'@include(if: true) '.repeat(200)} } }`,
    code: 'DIRECTIVE_LIMIT',
  },
];

describe('abusive documents are refused before any work, over HTTP and graphql-ws alike', () => {
  let api: GraphqlTestApi;
  let store: Store;
  let user: { id: string; token: string };
  beforeAll(async () => {
    store = await createStore({});
    api = await startGraphqlApi(store);
    user = await api.createUser('Abuse');
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
  });

  it.each(ABUSE)('$name: HTTP 400 with $code, while liveness keeps answering', async ({ query, code }) => {
    // Liveness asked while the document is being handled: the event loop must stay free.
    const live = Array.from({ length: 5 }, () => fetch(`${api.url}/health/live`).then((r) => r.status));
    // GraphQL over HTTP: a refused document is 400 for a client that accepts the GraphQL response type
    // (200 with the errors for one asking for plain application/json, as the spec keeps it).
    const res = await gql(api, query, { token: user.token, accept: 'application/graphql-response+json' });
    expect(res.status).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe(code);
    expect((await gql(api, query, { token: user.token })).json().errors[0].extensions.code).toBe(code);
    expect(await Promise.all(live)).toEqual([200, 200, 200, 200, 200]);
  });

  it.each(ABUSE)('$name: the same code over graphql-ws', async ({ query, code }) => {
    const client = wsClient(api, { authorization: `Bearer ${user.token}` });
    try {
      const result = await new Promise<unknown>((resolve) => {
        client.subscribe({ query }, { next: resolve, error: resolve, complete: () => resolve('complete') });
      });
      const errors = Array.isArray(result) ? result : ((result as { errors?: unknown[] }).errors ?? []);
      expect((errors[0] as { extensions?: { code?: string } }).extensions?.code).toBe(code);
    } finally {
      await client.dispose();
    }
  });
});
