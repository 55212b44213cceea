import type { Store } from './store.js';

/** Fixed ids of the demo data, so the curl examples of README.md and docs/api.md work on every seeded start. */
export const SEED_IDS = {
  admin: '00000000-0000-4000-8000-000000000001',
  ada: '00000000-0000-4000-8000-000000000002',
  grace: '00000000-0000-4000-8000-000000000003',
  linus: '00000000-0000-4000-8000-000000000004',
  margaret: '00000000-0000-4000-8000-000000000005',
  /** Ada's first order, PENDING until someone cancels or pays it. */
  adaPendingOrder: '00000000-0000-4000-9000-000000000001',
} as const;

/** Seeded orders are numbered 1, 2, … in this id space, so examples can name them. */
const orderId = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;

const USERS: ReadonlyArray<[string, string, string, 'user' | 'admin', string | null]> = [
  [SEED_IDS.admin, 'Ops Admin', 'admin@example.com', 'admin', null],
  [SEED_IDS.ada, 'Ada Lovelace', 'ada@example.com', 'user', '12 St James Square, London'],
  [SEED_IDS.grace, 'Grace Hopper', 'grace@example.com', 'user', '1 Navy Yard, Arlington'],
  [SEED_IDS.linus, 'Linus Torvalds', 'linus@example.com', 'user', null],
  [SEED_IDS.margaret, 'Margaret Hamilton', 'margaret@example.com', 'user', '77 Mass Ave, Cambridge'],
];

// [status, [productName, quantity, unitPriceCents][]] per order; every user gets each of these.
const ORDERS: ReadonlyArray<[string, ReadonlyArray<[string, number, number]>]> = [
  [
    'PENDING',
    [
      ['Keyboard', 1, 4_999],
      ['USB cable', 2, 799],
    ],
  ],
  ['PAID', [['Monitor', 1, 18_900]]],
  [
    'SHIPPED',
    [
      ['Desk lamp', 1, 2_450],
      ['Light bulb', 4, 325],
    ],
  ],
  ['DELIVERED', [['Notebook', 3, 450]]],
  ['CANCELLED', [['Headphones', 1, 7_999]]],
  ['PENDING', [['Coffee beans', 2, 1_299]]],
];

/** Loads the demo data (an admin, four users, each with orders in every state); idempotent. */
export async function seedDemoData(store: Store): Promise<{ users: number; orders: number }> {
  return store.transaction(async (tx) => {
    const existing = await tx.query('SELECT 1 FROM users WHERE id = $1', [SEED_IDS.admin]);
    if (existing.length > 0) return { users: 0, orders: 0 };
    let orders = 0;
    for (const [id, name, email, role, address] of USERS) {
      await tx.query('INSERT INTO users (id, name, email, role, address) VALUES ($1, $2, $3, $4, $5)', [
        id,
        name,
        email,
        role,
        address,
      ]);
      if (role === 'admin') continue;
      for (const [status, items] of ORDERS) {
        const total = items.reduce((sum, [, quantity, cents]) => sum + quantity * cents, 0);
        orders++;
        await tx.query(
          'INSERT INTO orders (id, user_id, status, total_price_cents) VALUES ($1, $2, $3, $4)',
          [orderId(orders), id, status, total],
        );
        for (const [index, [product, quantity, cents]] of items.entries())
          await tx.query(
            'INSERT INTO order_items (order_id, position, product_name, quantity, unit_price_cents) VALUES ($1, $2, $3, $4, $5)',
            [orderId(orders), index + 1, product, quantity, cents],
          );
      }
    }
    return { users: USERS.length, orders };
  });
}
