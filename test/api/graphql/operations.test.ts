import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendJson } from '../support/http-client.js';
import { STORE_VARIANTS } from '../support/harness.js';
import type { Store } from '../../../api/store/store.js';
import { gql, startGraphqlApi, type GraphqlTestApi } from './support/graphql-api.js';

const ITEMS = [
  { productName: 'Widget', quantity: 3, unitPrice: 19.99 },
  { productName: 'Gadget', quantity: 1, unitPrice: 0.1 },
];
const ORDER_FIELDS =
  'id userId status totalPrice items { productName quantity unitPrice } _links { self { href } cancel { href method } }';
const CREATE = `mutation($input: CreateOrderInput!) { createOrder(input: $input) { ${ORDER_FIELDS} } }`;

describe.each(STORE_VARIANTS)('GraphQL queries and mutations ($name)', (variant) => {
  let api: GraphqlTestApi;
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await variant.open());
    api = await startGraphqlApi(store);
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
    await drop?.();
  });

  it('__typename needs no credentials; user data without a token is UNAUTHENTICATED with the request id', async () => {
    const open = await gql(api, '{ __typename }');
    expect(open.status).toBe(200);
    expect(open.json()).toEqual({ data: { __typename: 'Query' }, extensions: { storeQueries: 0 } });
    const closed = await gql(api, '{ __typename me { id } }');
    expect(closed.status).toBe(200);
    const body = closed.json();
    expect(body.data).toEqual({ __typename: 'Query', me: null });
    expect(body.errors[0].extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      requestId: closed.headers['x-request-id'],
    });
  });

  it('a bad token is 401 with WWW-Authenticate, not a silent anonymous request', async () => {
    const res = await gql(api, '{ __typename }', { token: 'not-a-jwt' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('query: user, me, order and users return REST ids and links; the caller sees only their own', async () => {
    const ada = await api.createUser('Ada');
    const bob = await api.createUser('Bob');
    const created = await sendJson(`${api.url}/orders`, 'POST', { items: ITEMS }, { token: ada.token });
    expect(created.status).toBe(201);
    const rest = created.json();
    const res = await gql(
      api,
      `query($id: ID!, $order: ID!) { me { id name } user(id: $id) { id _links { self { href } } }
        order(id: $order) { ${ORDER_FIELDS} user { id name } } }`,
      { token: ada.token, variables: { id: ada.id, order: rest.id } },
    );
    expect(res.status).toBe(200);
    const { data, errors } = res.json();
    expect(errors).toBeUndefined();
    expect(data.me).toEqual({ id: ada.id, name: 'Ada' });
    expect(data.user._links.self.href).toBe(`${api.url}/users/${ada.id}`);
    expect(data.order).toMatchObject({
      id: rest.id,
      status: 'PENDING',
      totalPrice: rest.totalPrice,
      _links: { self: rest._links.self, cancel: rest._links.cancel },
    });
    expect(data.order.items).toEqual(rest.items.map(({ id: _id, ...item }: { id: string }) => item));
    expect(data.order.user).toEqual({ id: ada.id, name: 'Ada' });

    const other = await gql(api, `query($id: ID!) { user(id: $id) { id } }`, {
      token: bob.token,
      variables: { id: ada.id },
    });
    expect(other.status).toBe(200);
    expect(other.json().data).toEqual({ user: null });
    expect(other.json().errors[0].extensions.code).toBe('FORBIDDEN');
    const list = await gql(api, '{ users(first: 2) { id } }', { token: bob.token });
    expect(list.json().errors[0].extensions.code).toBe('FORBIDDEN');
    const missing = await gql(api, `query($id: ID!) { order(id: $id) { id } }`, {
      token: ada.token,
      variables: { id: randomUUID() },
    });
    expect(missing.json().errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('users: pages with first/after like REST and searches with search', async () => {
    const name = `Searchable ${randomUUID().slice(0, 8)}`;
    await api.createUser(name);
    await api.createUser(name);
    const page1 = (
      await gql(api, `{ users(first: 1, search: "${name}") { id name cursor } }`, { token: api.adminToken })
    ).json();
    expect(page1.data.users).toHaveLength(1);
    const page2 = (
      await gql(
        api,
        `query($after: String) { users(first: 5, search: "${name}", after: $after) { id name } }`,
        {
          token: api.adminToken,
          variables: { after: page1.data.users[0].cursor },
        },
      )
    ).json();
    expect(page2.data.users).toHaveLength(1);
    expect(page2.data.users[0].id).not.toBe(page1.data.users[0].id);
    const tooMany = (await gql(api, '{ users(first: 101) { id } }', { token: api.adminToken })).json();
    expect(tooMany.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('mutations run the REST rules: create, update along the state machine, cancel, delete, with error codes', async () => {
    const user = await api.createUser();
    const created = (
      await gql(api, CREATE, { token: user.token, variables: { input: { items: ITEMS } } })
    ).json();
    const order = created.data.createOrder;
    expect(order).toMatchObject({ userId: user.id, status: 'PENDING', totalPrice: 60.07 });
    expect(order._links.cancel).toEqual({ href: `${api.url}/orders/${order.id}/cancel`, method: 'POST' });
    const rest = await sendJson(`${api.url}/orders/${order.id}`, 'GET', undefined, { token: user.token });
    expect(rest.json().totalPrice).toBe(60.07);

    const invalid = (
      await gql(api, CREATE, { token: user.token, variables: { input: { items: [] } } })
    ).json();
    expect(invalid.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
    });
    expect(invalid.errors[0].extensions.fieldErrors[0].pointer).toBe('/items');

    const paid = (
      await gql(
        api,
        `mutation($id: ID!) { updateOrder(id: $id, input: { status: PAID }) { status _links { cancel { href } } } }`,
        {
          token: user.token,
          variables: { id: order.id },
        },
      )
    ).json();
    expect(paid.data.updateOrder).toEqual({ status: 'PAID', _links: { cancel: null } });
    const shipByUser = (
      await gql(api, `mutation($id: ID!) { updateOrder(id: $id, input: { status: SHIPPED }) { status } }`, {
        token: user.token,
        variables: { id: order.id },
      })
    ).json();
    expect(shipByUser.errors[0].extensions.code).toBe('FORBIDDEN');
    const cancelPaid = (
      await gql(api, `mutation($id: ID!) { cancelOrder(id: $id) { status } }`, {
        token: user.token,
        variables: { id: order.id },
      })
    ).json();
    expect(cancelPaid.errors[0].extensions).toMatchObject({
      code: 'CONFLICT',
      reason: 'ORDER_TRANSITION_INVALID',
    });
    const deletePaid = (
      await gql(api, `mutation($id: ID!) { deleteOrder(id: $id) }`, {
        token: user.token,
        variables: { id: order.id },
      })
    ).json();
    expect(deletePaid.errors[0].extensions.code).toBe('CONFLICT');

    const second = (
      await gql(api, CREATE, { token: user.token, variables: { input: { items: ITEMS } } })
    ).json().data.createOrder;
    const cancelled = (
      await gql(api, `mutation($id: ID!) { cancelOrder(id: $id) { status } }`, {
        token: user.token,
        variables: { id: second.id },
      })
    ).json();
    expect(cancelled.data.cancelOrder.status).toBe('CANCELLED');
    const deleted = (
      await gql(api, `mutation($id: ID!) { deleteOrder(id: $id) }`, {
        token: user.token,
        variables: { id: second.id },
      })
    ).json();
    expect(deleted.data.deleteOrder).toBe(second.id);
    const gone = await sendJson(`${api.url}/orders/${second.id}`, 'GET', undefined, { token: user.token });
    expect(gone.status).toBe(404);
  });

  it('application/graphql-response+json: field errors stay 200 with data, request errors are 400', async () => {
    const accept = 'application/graphql-response+json';
    const field = await gql(api, '{ me { id } }', { accept });
    expect(field.status).toBe(200);
    expect(field.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    expect(field.json().data).toEqual({ me: null });
    const invalid = await gql(api, '{ nope }', { accept });
    expect(invalid.status).toBe(400);
    expect(invalid.json().errors[0].extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      requestId: expect.any(String),
    });
    const syntax = await gql(api, '{ me { ', { accept });
    expect(syntax.status).toBe(400);
    expect(syntax.json().errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const json = await gql(api, '{ nope }');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.json().data).toBeUndefined();
  });

  it('HTTP protocol: 415 for a non-JSON body, 400 for malformed JSON, 406 for an unserved Accept, 405 for PUT', async () => {
    const wrongType = await sendJson(
      `${api.url}/graphql`,
      'POST',
      { query: '{ __typename }' },
      { headers: { 'content-type': 'text/plain' } },
    );
    expect(wrongType.status).toBe(415);
    const { send } = await import('../support/http-client.js');
    const malformed = await send(`${api.url}/graphql`, {
      method: 'POST',
      body: '{"query":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json().errors[0].extensions.code).toBe('BAD_REQUEST');
    const notAcceptable = await gql(api, '{ __typename }', { accept: 'text/html' });
    expect(notAcceptable.status).toBe(406);
    const put = await send(`${api.url}/graphql`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    const subscription = (
      await gql(api, 'subscription { orderCreated { id } }', { token: api.adminToken })
    ).json();
    expect(subscription.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('/graphql has its own rate limit: past it, 429 with Retry-After and RATE_LIMITED', async () => {
    const limited = await startGraphqlApi(store, { config: { rateLimitMax: 2 } });
    try {
      expect((await gql(limited, '{ __typename }')).status).toBe(200);
      expect((await gql(limited, '{ __typename }')).status).toBe(200);
      const over = await gql(limited, '{ __typename }');
      expect(over.status).toBe(429);
      expect(over.headers['retry-after']).toBeDefined();
      expect(over.json().errors[0].extensions).toMatchObject({
        code: 'RATE_LIMITED',
        requestId: expect.any(String),
      });
    } finally {
      await limited.close();
    }
  });

  it('a variable of the wrong type is BAD_USER_INPUT with graphql-js own message, not a server fault', async () => {
    const query = 'query($n: Int) { users(first: $n) { id } }';
    // 1e309 is written raw: JSON.stringify would turn Infinity into null.
    for (const n of ['"abc"', '1.5', '1e309']) {
      const res = await send(`${api.url}/graphql`, {
        method: 'POST',
        token: api.adminToken,
        body: `{"query": ${JSON.stringify(query)}, "variables": {"n": ${n}}}`,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      });
      const [error] = res.json().errors;
      expect(error.extensions.code, JSON.stringify(error)).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/^Variable "\$n" got invalid value/);
    }
  });
});
