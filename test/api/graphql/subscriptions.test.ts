import { randomUUID } from 'node:crypto';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createOrderEventBus } from '../../../api/events/order-event-bus.js';
import { createStore } from '../../../api/store/create-store.js';
import type { Store } from '../../../api/store/store.js';
import { DATABASE_URL, REDIS_URL } from '../../support/services.js';
import { sendJson } from '../support/http-client.js';
import { postgresSchema, STORE_VARIANTS } from '../support/harness.js';
import { gql, startGraphqlApi, wsClient, type GraphqlTestApi } from './support/graphql-api.js';

const ITEMS = [{ productName: 'Lamp', quantity: 1, unitPrice: 12.5 }];

/** Subscribes on `api` and returns a function that waits (bounded) for the next result. */
async function subscribe(
  api: GraphqlTestApi,
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
  { registered = true } = {},
) {
  const before = api.listeners();
  const iterator = client.iterate({ query, variables });
  const next = (ms = 5_000) =>
    Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms)),
    ]);
  // graphql-ws acknowledges a subscription only by its first result: wait until the server listens.
  if (registered) await expect.poll(() => api.listeners(), { timeout: 5_000 }).toBeGreaterThan(before);
  return { next, stop: () => iterator.return?.() };
}

/** Opens a raw graphql-transport-ws socket, sends connection_init, resolves with the close code. */
function closeCodeFor(url: string, payload?: Record<string, unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', ...(payload ? { payload } : {}) })),
    );
    socket.on('close', (code) => resolve(code));
    socket.on('error', reject);
  });
}

describe.each(STORE_VARIANTS)('subscriptions on one instance ($name)', (variant) => {
  let api: GraphqlTestApi;
  let store: Store;
  let drop: () => Promise<void>;
  const clients: Client[] = [];
  beforeAll(async () => {
    ({ store, drop } = await variant.open());
    api = await startGraphqlApi(store);
  });
  afterAll(async () => {
    for (const client of clients) await client.dispose();
    await api?.close();
    await store?.close();
    await drop?.();
  });
  const connect = async (token: string) => {
    const client = wsClient(api, { authorization: `Bearer ${token}` });
    clients.push(client);
    return client;
  };

  it('without a valid token in connection_init the socket is closed with 4403 Forbidden', async () => {
    expect(await closeCodeFor(api.wsUrl)).toBe(4403);
    expect(await closeCodeFor(api.wsUrl, { authorization: 'Bearer not-a-token' })).toBe(4403);
  });

  it('orderCreated: REST and GraphQL creations reach the owner; another user sees none of them', async () => {
    const ada = await api.createUser('Ada');
    const bob = await api.createUser('Bob');
    const own = await subscribe(
      api,
      await connect(ada.token),
      'subscription { orderCreated { id userId status totalPrice user { name } } }',
    );
    const others = await subscribe(api, await connect(bob.token), 'subscription { orderCreated { id } }');

    const viaRest = (
      await sendJson(`${api.url}/orders`, 'POST', { items: ITEMS }, { token: ada.token })
    ).json();
    const first = await own.next();
    expect(first.value?.data?.orderCreated).toEqual({
      id: viaRest.id,
      userId: ada.id,
      status: 'PENDING',
      totalPrice: 12.5,
      user: { name: 'Ada' },
    });
    const viaGraphql = (
      await gql(api, 'mutation($i: CreateOrderInput!) { createOrder(input: $i) { id } }', {
        token: ada.token,
        variables: { i: { items: ITEMS } },
      })
    ).json();
    expect((await own.next()).value?.data?.orderCreated.id).toBe(viaGraphql.data.createOrder.id);
    await expect(others.next(400)).rejects.toThrow(/no event/);
    await own.stop();
    await others.stop();
  });

  it('orderStatusChanged(orderId): a REST cancel is delivered; following another user is FORBIDDEN', async () => {
    const ada = await api.createUser('Ada');
    const bob = await api.createUser('Bob');
    const order = (
      await sendJson(`${api.url}/orders`, 'POST', { items: ITEMS }, { token: ada.token })
    ).json();
    const changes = await subscribe(
      api,
      await connect(ada.token),
      'subscription($id: ID) { orderStatusChanged(orderId: $id) { id status _links { cancel { href } } } }',
      { id: order.id },
    );
    const cancelled = await sendJson(`${api.url}/orders/${order.id}/cancel`, 'POST', undefined, {
      token: ada.token,
    });
    expect(cancelled.status).toBe(200);
    expect((await changes.next()).value?.data?.orderStatusChanged).toEqual({
      id: order.id,
      status: 'CANCELLED',
      _links: { cancel: null },
    });
    await changes.stop();

    const spy = await subscribe(
      api,
      await connect(bob.token),
      'subscription($u: ID) { orderCreated(userId: $u) { id } }',
      { u: ada.id },
      { registered: false },
    );
    const refused = await spy.next();
    expect(refused.value?.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      requestId: expect.any(String),
    });
  });
});

/** A pair of instances that share nothing in memory: events can only travel through `bus`. */
interface Pair {
  name: string;
  start(): Promise<{ a: GraphqlTestApi; b: GraphqlTestApi; close(): Promise<void> }>;
}

const PAIRS: Pair[] = [
  {
    name: 'embedded PGlite: the process that owns the database owns the bus',
    async start() {
      const store = await createStore();
      const events = createOrderEventBus();
      const a = await startGraphqlApi(store, { events });
      const b = await startGraphqlApi(store, { events });
      return {
        a,
        b,
        async close() {
          await a.close();
          await b.close();
          await events.close();
          await store.close();
        },
      };
    },
  },
];
{
  const url = DATABASE_URL;
  PAIRS.push({
    name: 'PostgreSQL LISTEN/NOTIFY, two stores on one server',
    async start() {
      const db = postgresSchema(url);
      const [storeA, storeB] = [await db.open(), await db.open()];
      const bus = { databaseUrl: url, channel: `proxyops_events_${db.schema}` };
      const a = await startGraphqlApi(storeA, { bus });
      const b = await startGraphqlApi(storeB, { bus });
      return {
        a,
        b,
        async close() {
          await a.close();
          await b.close();
          await storeA.close();
          await storeB.close();
          await db.drop();
        },
      };
    },
  });
}
{
  const url = REDIS_URL;
  PAIRS.push({
    name: 'Redis pub/sub',
    async start() {
      const variant = STORE_VARIANTS[STORE_VARIANTS.length - 1];
      if (!variant) throw new Error('no store variant');
      const { store, drop } = await variant.open();
      const bus = { redisUrl: url, channel: `proxyops:test:${randomUUID()}` };
      const a = await startGraphqlApi(store, { bus });
      const b = await startGraphqlApi(store, { bus });
      return {
        a,
        b,
        async close() {
          await a.close();
          await b.close();
          await store.close();
          await drop();
        },
      };
    },
  });
}

describe.each(PAIRS)('subscriptions across instances ($name)', (pair) => {
  it('a client subscribed on A receives the status change of an order cancelled via REST on B', async () => {
    const { a, b, close } = await pair.start();
    const client = wsClient(a, { authorization: `Bearer ${await a.tokenFor(randomUUID(), 'admin')}` });
    try {
      const user = await b.createUser('Cross');
      const order = (
        await sendJson(`${b.url}/orders`, 'POST', { items: ITEMS }, { token: user.token })
      ).json();
      const changes = await subscribe(
        a,
        client,
        'subscription($u: ID) { orderStatusChanged(userId: $u) { id status user { name } } }',
        { u: user.id },
      );
      const created = await subscribe(
        a,
        client,
        'subscription { orderCreated { id userId items { productName } } }',
      );
      const cancelled = await sendJson(`${b.url}/orders/${order.id}/cancel`, 'POST', undefined, {
        token: user.token,
      });
      expect(cancelled.status).toBe(200);
      expect((await changes.next()).value?.data?.orderStatusChanged).toEqual({
        id: order.id,
        status: 'CANCELLED',
        user: { name: 'Cross' },
      });
      // And the other way round: a GraphQL mutation on B reaches A's subscriber too. With 60 long
      // items the event is too large for one NOTIFY: it travels as a reference and A reloads it.
      const items = Array.from({ length: 60 }, (_, i) => ({
        productName: `${'x'.repeat(150)} ${i}`,
        quantity: 1,
        unitPrice: 1,
      }));
      const placed = (
        await gql(b, 'mutation($i: CreateOrderInput!) { createOrder(input: $i) { id } }', {
          token: user.token,
          variables: { i: { items } },
        })
      ).json();
      const received = (await created.next()).value?.data?.orderCreated;
      expect(received).toEqual({ id: placed.data.createOrder.id, userId: user.id, items: expect.any(Array) });
      expect(received.items).toHaveLength(60);
      await changes.stop();
      await created.stop();
    } finally {
      await client.dispose();
      await close();
    }
  });
});
