import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveApiConfig } from '../../../api/defaults.js';
import { createStore } from '../../../api/store/create-store.js';
import type { Store } from '../../../api/store/store.js';
import { gql, startGraphqlApi, type GraphqlTestApi } from './support/graphql-api.js';

const INTROSPECT = '{ __schema { types { name } } }';
const TYPO = '{ me { nam } }';

describe('schema exposure: introspection and suggestions', () => {
  let store: Store;
  const apis: GraphqlTestApi[] = [];
  let open: GraphqlTestApi;
  let closed: GraphqlTestApi;
  beforeAll(async () => {
    store = await createStore({});
    open = await startGraphqlApi(store, { config: { graphqlIntrospection: 'on' } });
    closed = await startGraphqlApi(store, { config: { graphqlIntrospection: 'off' } });
    apis.push(open, closed);
  });
  afterAll(async () => {
    for (const api of apis) await api.close();
    await store?.close();
  });

  it('on: the schema answers, and a typo gets a suggestion', async () => {
    const schema = (await gql(open, INTROSPECT, { token: open.adminToken })).json();
    expect(schema.data.__schema.types.map((t: { name: string }) => t.name)).toContain('User');
    const typo = (await gql(open, TYPO, { token: open.adminToken })).json();
    expect(typo.errors[0].message).toMatch(/Did you mean "name"\?/);
  });

  it('off: introspection is refused, and no error names a field the client did not write', async () => {
    const schema = (await gql(closed, INTROSPECT, { token: closed.adminToken })).json();
    expect(schema.data).toBeUndefined();
    expect(schema.errors[0].message).toMatch(/introspection/i);
    const typo = (await gql(closed, TYPO, { token: closed.adminToken })).json();
    expect(typo.errors[0].message).toBe('Cannot query field "nam" on type "User".');
  });

  it('auto is off under NODE_ENV=production and on otherwise; other values are refused', () => {
    expect(
      resolveApiConfig({}, { NODE_ENV: 'production', PROXYOPS_JWT_SECRET: 'x'.repeat(40) })
        .graphqlIntrospection,
    ).toBe('off');
    expect(resolveApiConfig({}, {}).graphqlIntrospection).toBe('on');
    expect(
      resolveApiConfig({ graphqlIntrospection: 'on' }, { NODE_ENV: 'production' }).graphqlIntrospection,
    ).toBe('on');
    expect(() => resolveApiConfig({}, { PROXYOPS_GRAPHQL_INTROSPECTION: 'maybe' })).toThrow(
      /PROXYOPS_GRAPHQL_INTROSPECTION "maybe" must be one of auto, on, off/,
    );
  });
});
