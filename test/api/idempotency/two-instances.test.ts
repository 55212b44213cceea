import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../api/store/store.js';
import { DATABASE_URL } from '../../support/services.js';
import { postgresSchema, startTestApi, type TestApi } from '../support/harness.js';
import { sendJson, type TestResponse } from '../support/http-client.js';

const ORDER = { items: [{ productName: 'Widget', quantity: 1, unitPrice: 4 }] };

// Two instances, each with its own pool, on one schema of the real PostgreSQL server.
describe('Idempotency-Key across two API instances on one PostgreSQL', () => {
  const db = postgresSchema(DATABASE_URL);
  let api: TestApi;
  let secondStore: Store;
  let second: { url: string };
  let user: { id: string; token: string };
  beforeAll(async () => {
    api = await startTestApi({
      name: 'postgres',
      open: async () => ({ store: await db.open(), drop: db.drop }),
    });
    secondStore = await db.open();
    second = await api.startSibling({ store: secondStore });
    user = await api.createUser();
  });
  afterAll(async () => {
    await secondStore?.close();
    await api?.close();
  });

  const post = (url: string, key: string, body: unknown = ORDER) =>
    sendJson(`${url}/orders`, 'POST', body, {
      token: user.token,
      headers: { 'idempotency-key': `"${key}"` },
    });
  const ordersOf = async () =>
    Number(
      (
        await api.store.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE user_id = $1', [user.id])
      )[0]?.n,
    );

  it('a retry that reaches the other instance gets the stored response', async () => {
    const before = await ordersOf();
    const key = randomUUID();
    const first = await post(api.url, key);
    const retry = await post(second.url, key);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await ordersOf()).toBe(before + 1);
  });

  it('a repeat while the first is still running is 409 with Retry-After; afterwards it is replayed', async () => {
    // Holding the user's row keeps the first request's INSERT (its foreign key check) waiting.
    const blocker = new pg.Client({ connectionString: DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query(`SET search_path = ${db.schema}`);
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [user.id]);
      const key = randomUUID();
      const first = post(api.url, key);
      // The first request holds the key once its claim is committed: wait for the row, not a time.
      for (let i = 0; i < 200; i++) {
        const held = await blocker.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
        if (held.rowCount) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const during = await post(second.url, key);
      expect(during.status).toBe(409);
      expect(during.headers['retry-after']).toMatch(/^\d+$/);
      expect(during.json().code).toBe('IDEMPOTENCY_KEY_IN_FLIGHT');
      await blocker.query('COMMIT');
      const done = await first;
      expect(done.status).toBe(201);
      const after = await post(second.url, key);
      expect(after.status).toBe(201);
      expect(after.text).toBe(done.text);
    } finally {
      await blocker.end();
    }
  });

  it('20 concurrent copies of one keyed request on both instances place exactly one order', async () => {
    const before = await ordersOf();
    const key = randomUUID();
    const answers: TestResponse[] = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 ? api.url : second.url, key)),
    );
    const statuses = new Set(answers.map((answer) => answer.status));
    expect([...statuses].filter((status) => status !== 201 && status !== 409)).toEqual([]);
    const created = answers.filter((answer) => answer.status === 201).map((answer) => answer.json().id);
    expect(new Set(created).size).toBe(1);
    expect(await ordersOf()).toBe(before + 1);
  });
});
