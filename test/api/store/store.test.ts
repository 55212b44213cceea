import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../../api/store/create-store.js';
import { applyMigrations } from '../../../api/store/migrate.js';
import { seedDemoData, SEED_IDS } from '../../../api/store/seed.js';
import type { Store } from '../../../api/store/store.js';
import { STORE_VARIANTS } from '../support/harness.js';

describe.each(STORE_VARIANTS)('store ($name)', (variant) => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await variant.open());
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it('applies migrations once: a second start applies nothing', async () => {
    expect(await applyMigrations(store)).toEqual([]);
    const applied = await store.query<{ name: string }>('SELECT name FROM schema_migrations');
    expect(applied.length).toBeGreaterThan(0);
  });

  it('rolls a failing transaction back completely', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.query("INSERT INTO users (name, email) VALUES ('Ghost', 'ghost@example.com')");
        await tx.query('SELECT * FROM no_such_table');
      }),
    ).rejects.toThrow();
    expect(await store.query("SELECT 1 FROM users WHERE email = 'ghost@example.com'")).toEqual([]);
  });

  it('seeds an admin and users, each with orders in several states (some PENDING) and items; once', async () => {
    const first = await seedDemoData(store);
    expect(first.users).toBeGreaterThan(1);
    expect(await seedDemoData(store)).toEqual({ users: 0, orders: 0 });
    const admins = await store.query<{ id: string }>("SELECT id FROM users WHERE role = 'admin'");
    expect(admins.map((a) => a.id)).toContain(SEED_IDS.admin);
    const perUser = await store.query<{
      user_id: string;
      states: string[];
      pending: string;
      without_items: string;
    }>(
      `SELECT o.user_id, array_agg(DISTINCT o.status) AS states,
              count(*) FILTER (WHERE o.status = 'PENDING') AS pending,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id)) AS without_items
       FROM orders o GROUP BY o.user_id`,
    );
    expect(perUser.length).toBe(first.users - 1);
    for (const row of perUser) {
      expect(row.states.length).toBeGreaterThan(2);
      expect(Number(row.pending)).toBeGreaterThan(0);
      expect(Number(row.without_items)).toBe(0);
    }
    const totals = await store.query<{ mismatched: string }>(
      `SELECT count(*) AS mismatched FROM orders o
       WHERE total_price_cents <> (SELECT sum(quantity * unit_price_cents) FROM order_items i WHERE i.order_id = o.id)`,
    );
    expect(Number(totals[0]?.mismatched)).toBe(0);
  });
});

describe('embedded PGlite with a data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-pglite-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps data across restarts', async () => {
    const first = await createStore({ dataDir: dir });
    await first.query("INSERT INTO users (name, email) VALUES ('Kept', 'kept@example.com')");
    await first.close();
    const second = await createStore({ dataDir: dir });
    const rows = await second.query<{ name: string }>(
      "SELECT name FROM users WHERE email = 'kept@example.com'",
    );
    await second.close();
    expect(rows.map((r) => r.name)).toEqual(['Kept']);
  });
});
