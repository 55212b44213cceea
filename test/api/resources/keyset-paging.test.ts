import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../api/store/store.js';
import { gql, startGraphqlApi, type GraphqlTestApi } from '../graphql/support/graphql-api.js';
import { send, sendJson } from '../support/http-client.js';
import { STORE_VARIANTS } from '../support/harness.js';
import { seededRandom, testSeed } from '../../support/seeded-random.js';

// Past every decimal-digit boundary (9 -> 10, 99 -> 100, 999 -> 1000) where text and numeric order part.
const USERS = 1_500;
const OWNER_ORDERS = 1_200;
const OTHER_ORDERS = 1_000;
const ITEMS = 100;
const MAX_PAGE = 100;
// Each collection is paged while a writer adds at most this many rows to it.
const LATE_ROWS = 150;

/** One page of a collection: the ids on it and the cursor of the next (null after the last). */
type FetchPage = (limit: number, cursor: string | null) => Promise<{ ids: string[]; next: string | null }>;

/** A collection, the ids it held (in keyset order) before paging began, and how to add to it. */
interface Collection {
  name: string;
  existing: () => Promise<string[]>;
  fetchPage: FetchPage;
  addRow: () => Promise<unknown>;
}

type GraphqlData = { users: GraphqlRow[]; me: { orders: GraphqlRow[] } };
type GraphqlRow = { id: string; cursor: string };

const seed = testSeed();

describe.each(STORE_VARIANTS)('keyset paging (property) ($name)', (variant) => {
  let store: Store;
  let drop: () => Promise<void>;
  let api: GraphqlTestApi;
  let owner: { id: string; token: string };
  let bigOrderId: string;
  let late = 0;
  const random = seededRandom(seed);

  const ids = async (sql: string, params: unknown[] = []) =>
    (await store.query<{ id: string }>(sql, params)).map((row) => row.id);

  const restPage =
    (path: string, token: () => string): FetchPage =>
    async (limit, cursor) => {
      const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
      const separator = path.includes('?') ? '&' : '?';
      const res = await send(`${api.url}${path}${separator}${query.toString()}`, { token: token() });
      expect(res.status, res.text).toBe(200);
      const body = res.json<{ items: Array<{ id: string }>; nextCursor: string | null }>();
      return { ids: body.items.map((item) => item.id), next: body.nextCursor };
    };

  // GraphQL lists carry no "next": a short page is the last; the cursor is the last row's.
  const graphqlPage =
    (
      query: string,
      pick: (data: GraphqlData) => Array<{ id: string; cursor: string }>,
      token: () => string,
    ): FetchPage =>
    async (limit, cursor) => {
      const res = await gql(api, query, { token: token(), variables: { first: limit, after: cursor } });
      const body = res.json();
      expect(body.errors, res.text).toBeUndefined();
      const rows = pick(body.data);
      return {
        ids: rows.map((row) => row.id),
        next: rows.length < limit ? null : rows[rows.length - 1]!.cursor,
      };
    };

  const addUser = () =>
    store.query('INSERT INTO users (name, email) VALUES ($1, $2)', [
      `Late ${++late}`,
      `bulk-1-late-${late}-${seed}@example.com`,
    ]);
  const addOwnerOrder = () =>
    sendJson(
      `${api.url}/orders`,
      'POST',
      { items: [{ productName: 'Late', quantity: 1, unitPrice: 1 }] },
      { token: owner.token },
    ).then((res) => expect(res.status, res.text).toBe(201));
  const addPaidOrder = () =>
    store.query("INSERT INTO orders (user_id, status, total_price_cents) VALUES ($1, 'PAID', 1)", [owner.id]);
  const addItem = () =>
    store.query(
      `INSERT INTO order_items (order_id, position, product_name, quantity, unit_price_cents)
       SELECT $1, coalesce(max(position), 0) + 1, 'Late', 1, 1 FROM order_items WHERE order_id = $1`,
      [bigOrderId],
    );

  beforeAll(async () => {
    ({ store, drop } = await variant.open());
    api = await startGraphqlApi(store);
    await store.query(
      `INSERT INTO users (name, email)
       SELECT 'Bulk ' || g, 'bulk-' || g || '@example.com' FROM generate_series(1, $1) g`,
      [USERS],
    );
    owner = await api.createUser('Owner');
    await store.query(
      `INSERT INTO orders (user_id, status, total_price_cents)
       SELECT $1, CASE WHEN g % 3 = 0 THEN 'PAID' ELSE 'PENDING' END, g FROM generate_series(1, $2) g`,
      [owner.id, OWNER_ORDERS],
    );
    // The other users' orders interleave with the owner's, so a filtered page spans gaps in seq.
    await store.query(
      `INSERT INTO orders (user_id, status, total_price_cents)
       SELECT u.id, 'PAID', 1 FROM (SELECT id FROM users WHERE name LIKE 'Bulk %' ORDER BY seq LIMIT $1) u`,
      [OTHER_ORDERS],
    );
    bigOrderId = (await ids('SELECT id FROM orders WHERE user_id = $1 ORDER BY seq LIMIT 1', [owner.id]))[0]!;
    await store.query(
      `INSERT INTO order_items (order_id, position, product_name, quantity, unit_price_cents)
       SELECT $1, p, 'Item ' || p, 1, 100 FROM generate_series(1, $2) p`,
      [bigOrderId, ITEMS],
    );
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await store?.close();
    await drop?.();
  });

  const admin = () => api.adminToken;
  const ownerToken = () => owner.token;
  const collections = (): Collection[] => [
    {
      name: 'GET /orders (admin: every order)',
      existing: () => ids('SELECT id FROM orders ORDER BY seq'),
      fetchPage: restPage('/orders', admin),
      addRow: addOwnerOrder,
    },
    {
      name: 'GET /orders (a user: their own)',
      existing: () => ids('SELECT id FROM orders WHERE user_id = $1 ORDER BY seq', [owner.id]),
      fetchPage: restPage('/orders', ownerToken),
      addRow: addOwnerOrder,
    },
    {
      name: 'GET /orders?status=PAID',
      existing: () => ids("SELECT id FROM orders WHERE status = 'PAID' ORDER BY seq"),
      fetchPage: restPage('/orders?status=PAID', admin),
      addRow: addPaidOrder,
    },
    {
      name: 'GET /users/{id}/orders',
      existing: () => ids('SELECT id FROM orders WHERE user_id = $1 ORDER BY seq', [owner.id]),
      fetchPage: restPage(`/users/${owner?.id}/orders`, ownerToken),
      addRow: addOwnerOrder,
    },
    {
      name: 'GET /orders/{id}/items',
      existing: () => ids('SELECT id FROM order_items WHERE order_id = $1 ORDER BY position', [bigOrderId]),
      fetchPage: restPage(`/orders/${bigOrderId}/items`, ownerToken),
      addRow: addItem,
    },
    {
      name: 'GET /users',
      existing: () => ids('SELECT id FROM users ORDER BY seq'),
      fetchPage: restPage('/users', admin),
      addRow: addUser,
    },
    {
      name: 'GET /users/search?q=bulk-1',
      existing: () => ids("SELECT id FROM users WHERE strpos(email, 'bulk-1') > 0 ORDER BY seq"),
      fetchPage: restPage('/users/search?q=bulk-1', admin),
      addRow: addUser,
    },
    {
      name: 'GraphQL users(first, after)',
      existing: () => ids('SELECT id FROM users ORDER BY seq'),
      fetchPage: graphqlPage(
        'query($first: Int, $after: String) { users(first: $first, after: $after) { id cursor } }',
        (data) => data.users,
        admin,
      ),
      addRow: addUser,
    },
    {
      name: 'GraphQL users(search)',
      existing: () => ids("SELECT id FROM users WHERE strpos(email, 'bulk-1') > 0 ORDER BY seq"),
      fetchPage: graphqlPage(
        'query($first: Int, $after: String) { users(first: $first, after: $after, search: "BULK-1") { id cursor } }',
        (data) => data.users,
        admin,
      ),
      addRow: addUser,
    },
    {
      name: 'GraphQL User.orders(first, after)',
      existing: () => ids('SELECT id FROM orders WHERE user_id = $1 ORDER BY seq', [owner.id]),
      fetchPage: graphqlPage(
        `query($first: Int, $after: String) { me { orders(first: $first, after: $after) { id cursor } } }`,
        (data) => data.me.orders,
        ownerToken,
      ),
      addRow: addOwnerOrder,
    },
  ];

  it.each(collections().map((collection) => [collection.name, collection] as const))(
    '%s: pages of random sizes, with rows inserted meanwhile, hold every row exactly once, in order',
    async (_name, lazy) => {
      // The collections close over the beforeAll state: rebuild the row by name now that it exists.
      const collection = collections().find((c) => c.name === lazy.name)!;
      const before = await collection.existing();
      expect(before.length).toBeGreaterThan(ITEMS - 1);
      let writing = true;
      let added = 0;
      const writer = (async () => {
        while (writing && added < LATE_ROWS) {
          await collection.addRow();
          added += 1;
        }
      })();
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      try {
        do {
          const limit = random.int(1, MAX_PAGE);
          sizes.push(limit);
          const page = await collection.fetchPage(limit, cursor);
          expect(page.ids.length, `page ${sizes.length} of limit ${limit}`).toBeLessThanOrEqual(limit);
          seen.push(...page.ids);
          cursor = page.next;
        } while (cursor !== null);
      } finally {
        writing = false;
        await writer;
      }
      const context = `seed ${seed} (TEST_SEED=${seed} repeats it), page sizes ${sizes.join(',')}`;
      expect(new Set(seen).size, `a row came twice; ${context}`).toBe(seen.length);
      const existed = new Set(before);
      expect(
        seen.filter((id) => existed.has(id)),
        `rows present before paging, in keyset order; ${context}`,
      ).toEqual(before);
    },
    120_000,
  );
});
