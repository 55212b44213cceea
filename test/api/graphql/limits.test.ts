import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../api/store/store.js';
import { DATABASE_URL } from '../../support/services.js';
import { STORE_VARIANTS } from '../support/harness.js';
import { gql, startGraphqlApi, type GraphqlTestApi } from './support/graphql-api.js';

/** A chain me { orders { user { orders ... } } } exactly `depth` fields deep. */
function chain(depth: number): string {
  const levels = ['me'];
  while (levels.length < depth - 1) levels.push(levels.length % 2 === 1 ? 'orders(first: 1)' : 'user');
  const leaf = levels.length % 2 === 1 ? 'id' : 'id';
  return `{ ${levels.map((l) => `${l} {`).join(' ')} ${leaf} ${'}'.repeat(levels.length)} }`;
}

const codeOf = (body: { errors?: Array<{ extensions: { code: string } }> }) =>
  body.errors?.[0]?.extensions.code;

describe.each(STORE_VARIANTS)('query endpoint limits ($name)', (variant) => {
  let api: GraphqlTestApi;
  let store: Store;
  let drop: () => Promise<void>;
  let user: { id: string; token: string };
  beforeAll(async () => {
    ({ store, drop } = await variant.open());
    api = await startGraphqlApi(store);
    user = await api.createUser('Limits');
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
    await drop?.();
  });

  it('depth: 10 levels run by default, 11 are DEPTH_LIMIT', async () => {
    expect(api.config.graphqlDepthLimit).toBe(10);
    const under = (await gql(api, chain(10), { token: user.token })).json();
    expect(under.errors).toBeUndefined();
    expect(under.data.me.orders).toEqual([]);
    const over = (await gql(api, chain(11), { token: user.token })).json();
    expect(codeOf(over)).toBe('DEPTH_LIMIT');
    expect(over.errors[0].extensions).toMatchObject({ limit: 10, actual: 11 });
    expect(over.data).toBeUndefined();
  });

  it('cost: list fields multiply by first/last; 9,901 runs, 10,101 is COST_LIMIT', async () => {
    expect(api.config.graphqlCostLimit).toBe(10_000);
    const under = (
      await gql(api, '{ users(first: 100) { orders(first: 98) { id } } }', { token: api.adminToken })
    ).json();
    expect(under.errors).toBeUndefined();
    const over = (
      await gql(api, '{ users(first: 100) { orders(first: 100) { id } } }', { token: api.adminToken })
    ).json();
    expect(codeOf(over)).toBe('COST_LIMIT');
    expect(over.errors[0].extensions.actual).toBe(10_101);
    const viaVariable = (
      await gql(api, 'query($n: Int) { users(first: 100) { orders(last: $n) { id } } }', {
        token: api.adminToken,
        variables: { n: 100 },
      })
    ).json();
    expect(codeOf(viaVariable)).toBe('COST_LIMIT');
  });

  it('aliases: 30 run, 31 are ALIAS_LIMIT', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const under = (await gql(api, aliases(30))).json();
    expect(under.data.a29).toBe('Query');
    expect(codeOf((await gql(api, aliases(31))).json())).toBe('ALIAS_LIMIT');
  });

  it('tokens: a 3,000-token document parses, 3,001 tokens stop the parser (TOKEN_LIMIT)', async () => {
    // Operations `query Qi { __typename }` are 5 tokens each; the rest goes into Q0.
    const tokens = (n: number) =>
      Array.from({ length: Math.floor(n / 5) }, (_, i) =>
        i === 0 ? `query Q0 { __typename ${'__typename '.repeat(n % 5)}}` : `query Q${i} { __typename }`,
      ).join('\n');
    const under = (await gql(api, tokens(3_000), { operationName: 'Q0' })).json();
    expect(under.errors).toBeUndefined();
    expect(under.data).toEqual({ __typename: 'Query' });
    const over = (await gql(api, tokens(3_001), { operationName: 'Q0' })).json();
    expect(codeOf(over)).toBe('TOKEN_LIMIT');
  });

  it('timeout: just under it a three-order mutation completes', async () => {
    const res = (await gql(api, MUTATION, { token: user.token })).json();
    expect(res.errors).toBeUndefined();
    expect(Object.keys(res.data)).toEqual(['a', 'b', 'c']);
  });

  it('timeout: a blocked read answers TIMEOUT while still blocked, and the statement is cancelled', async () => {
    const slow = await startGraphqlApi(store, { config: { graphqlTimeoutMs: 300 } });
    const blocker = await block(store, 'users');
    try {
      const res = await gql(slow, '{ users(first: 5) { id } }', { token: api.adminToken });
      // The answer came while the table was still locked: the request did not wait for the work.
      expect(blocker.released).toBe(false);
      const body = res.json();
      expect(res.status).toBe(200);
      expect(codeOf(body)).toBe('TIMEOUT');
      expect(body.errors[0].extensions.requestId).toBe(res.headers['x-request-id']);
      if (variant.name === 'postgres') expect(await waitingStatements(blocker.schema, 'FROM users')).toBe(0);
    } finally {
      await blocker.release();
      await slow.close();
    }
  });

  it('timeout: a mutation past its deadline starts no further work and leaves no order behind', async () => {
    const slow = await startGraphqlApi(store, { config: { graphqlTimeoutMs: 300 } });
    const victim = await api.createUser('Timed out');
    const blocker = await block(store, 'orders');
    try {
      const res = (await gql(slow, MUTATION, { token: victim.token })).json();
      expect(blocker.released).toBe(false);
      expect(codeOf(res)).toBe('TIMEOUT');
      // On the server the blocked INSERT is cancelled before the lock goes away.
      if (variant.name === 'postgres')
        expect(await waitingStatements(blocker.schema, 'INSERT INTO orders')).toBe(0);
    } finally {
      await blocker.release();
      await slow.close();
    }
    await sleep(300);
    const orders = await store.query('SELECT 1 FROM orders WHERE user_id = $1', [victim.id]);
    expect(orders).toHaveLength(0);
  });
});

const ITEM = '{ productName: "Slow", quantity: 1, unitPrice: 1 }';
const MUTATION = `mutation {
  a: createOrder(input: { items: [${ITEM}] }) { id }
  b: createOrder(input: { items: [${ITEM}] }) { id }
  c: createOrder(input: { items: [${ITEM}] }) { id }
}`;

/**
 * Holds `table` so that statements on it wait: an exclusive lock from another connection on the
 * PostgreSQL server; on PGlite (one connection) an open transaction, which every other query queues behind.
 */
async function block(store: Store, table: 'users' | 'orders') {
  let released = false;
  if (store.kind === 'postgres') {
    const schema = (await store.query<{ s: string }>('SELECT current_schema() AS s'))[0]?.s ?? 'public';
    const client = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
    await client.connect();
    await client.query('BEGIN');
    await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return {
      schema,
      get released() {
        return released;
      },
      async release() {
        released = true;
        await client.query('ROLLBACK');
        await client.end();
      },
    };
  }
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered: () => void = () => undefined;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const holding = store.transaction(async (tx) => {
    await tx.query('SELECT 1');
    entered();
    await gate;
  });
  // Holding only once the transaction runs (a fixed sleep raced a loaded machine); a failed start rejects.
  await Promise.race([inside, holding]);
  return {
    schema: '',
    get released() {
      return released;
    },
    async release() {
      released = true;
      open();
      await holding;
    },
  };
}

/** Statements of `schema`'s connections still waiting on a lock, polled until none or 3 s. */
async function waitingStatements(schema: string, fragment: string): Promise<number> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (let i = 0; i < 30; i++) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE state = 'active' AND wait_event_type = 'Lock' AND strpos(query, $1) > 0 AND pid <> pg_backend_pid()`,
        [fragment],
      );
      if (rows[0].n === 0) return 0;
      await sleep(100);
    }
    return -1;
  } finally {
    await client.end();
    void schema;
  }
}
