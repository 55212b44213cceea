import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../api/store/store.js';
import { send } from '../support/http-client.js';
import { STORE_VARIANTS } from '../support/harness.js';
import { gql, seedBulk, startGraphqlApi, type GraphqlTestApi } from './support/graphql-api.js';

const NESTED = (first: number) =>
  `{ users(first: ${first}) { orders(last: 5) { items { productName } user { name } } } }`;

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

describe.each(STORE_VARIANTS)('batched lookups ($name)', (variant) => {
  let api: GraphqlTestApi;
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await variant.open());
    await seedBulk(store, 100, 7);
    api = await startGraphqlApi(store, { config: { graphqlCostLimit: 1_000_000 } });
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
    await drop?.();
  });

  it('users(first: N) { orders(last: 5) { items user } } runs the same few store queries whatever N is', async () => {
    const counts: number[] = [];
    for (const first of [1, 10, 50, 100]) {
      const before = metric(
        await (
          await send(`${api.url}/metrics`)
        ).text,
        'proxyops_graphql_store_queries_total',
      );
      const res = await gql(api, NESTED(first), { token: api.adminToken });
      const body = res.json();
      expect(body.errors).toBeUndefined();
      expect(body.data.users).toHaveLength(first);
      for (const user of body.data.users) {
        expect(user.orders).toHaveLength(5);
        for (const order of user.orders) {
          expect(order.items.map((i: { productName: string }) => i.productName)).toEqual([
            'Item 1',
            'Item 2',
          ]);
          expect(order.user.name).toMatch(/^Bulk /);
        }
      }
      const after = metric(
        await (
          await send(`${api.url}/metrics`)
        ).text,
        'proxyops_graphql_store_queries_total',
      );
      expect(after - before).toBe(body.extensions.storeQueries);
      counts.push(body.extensions.storeQueries);
    }
    // users, their orders, the orders' items: one query per level; Order.user comes from the users read.
    expect(counts).toEqual([3, 3, 3, 3]);
  });

  it('a user looked up from many orders is one query, and the last-5 window is the most recent orders', async () => {
    const user = await api.createUser('Many');
    for (let i = 0; i < 7; i++)
      await store.query("INSERT INTO orders (user_id, status, total_price_cents) VALUES ($1, 'PAID', $2)", [
        user.id,
        i,
      ]);
    const res = await gql(api, '{ me { orders(last: 5) { totalPrice user { name } } } }', {
      token: user.token,
    });
    const body = res.json();
    expect(body.data.me.orders.map((o: { totalPrice: number }) => o.totalPrice)).toEqual([
      0.02, 0.03, 0.04, 0.05, 0.06,
    ]);
    expect(body.extensions.storeQueries).toBeLessThanOrEqual(2);
  });
});
