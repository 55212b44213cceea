import { describe, expect, it } from 'vitest';
import { tokenVerifierFor } from '../../../api/auth/token-cache.js';
import { gql, useGraphqlApiOnEmbeddedStore, wsClient } from '../graphql/support/graphql-api.js';
import { send } from '../support/http-client.js';

// Each transport must verify through the one verifier of the secret: a path that called jose itself
// would leave the token out of the shared cache, and this test would see it missing.
describe('REST, GraphQL over HTTP and GraphQL over WebSocket verify through the shared verifier', () => {
  const api = useGraphqlApiOnEmbeddedStore();

  const freshToken = async () => {
    const { id, token } = await api().createUser();
    expect(tokenVerifierFor(api().jwtSecret).cached(token)).toBeUndefined();
    return { id, token };
  };
  const remembered = (token: string) => tokenVerifierFor(api().jwtSecret).cached(token);

  it('REST', async () => {
    const { id, token } = await freshToken();
    const response = await send(`${api().url}/orders`, { token });
    expect(response.status).toBe(200);
    expect(remembered(token)).toEqual({ id, role: 'user' });
  });

  it('GraphQL over HTTP', async () => {
    const { id, token } = await freshToken();
    const response = await gql(api(), '{ me { id } }', { token });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ data: { me: { id } }, extensions: expect.any(Object) });
    expect(remembered(token)).toEqual({ id, role: 'user' });
  });

  it('GraphQL over WebSocket', async () => {
    const { id, token } = await freshToken();
    const client = wsClient(api(), { authorization: `Bearer ${token}` });
    try {
      const result = await new Promise((resolve, reject) => {
        client.subscribe(
          { query: '{ __typename }' },
          { next: resolve, error: reject, complete: () => undefined },
        );
      });
      expect(result).toMatchObject({ data: { __typename: 'Query' } });
      expect(remembered(token)).toEqual({ id, role: 'user' });
    } finally {
      await client.dispose();
    }
  });
});
