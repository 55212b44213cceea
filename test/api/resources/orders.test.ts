import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendJson } from '../support/http-client.js';
import { snapshotData, startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

const ITEMS = [
  { productName: 'Widget', quantity: 3, unitPrice: 19.99 },
  { productName: 'Gadget', quantity: 1, unitPrice: 0.1 },
];

describe.each(STORE_VARIANTS)('orders endpoints ($name)', (variant) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { pageSizeDefault: 2, pageSizeMax: 10 } });
  });
  afterAll(() => api?.close());

  const placeOrder = async (token: string, body: unknown = { items: ITEMS }) => {
    const res = await sendJson(`${api.url}/orders`, 'POST', body, { token });
    expect(res.status).toBe(201);
    return res.json();
  };

  it('POST /orders: 201 with Location, the server computes totalPrice, PENDING with a cancel link', async () => {
    const user = await api.createUser();
    const res = await sendJson(`${api.url}/orders`, 'POST', { items: ITEMS }, { token: user.token });
    expect(res.status).toBe(201);
    const order = res.json();
    expect(res.headers.location).toBe(`${api.url}/orders/${order.id}`);
    const expected =
      ITEMS.reduce((sum, item) => sum + Math.round(item.unitPrice * 100) * item.quantity, 0) / 100;
    expect(order).toMatchObject({ userId: user.id, status: 'PENDING', totalPrice: expected });
    expect(order.items.map((i: { productName: string }) => i.productName)).toEqual(
      ITEMS.map((i) => i.productName),
    );
    expect(order._links.self.href).toBe(res.headers.location);
    expect(order._links.cancel).toEqual({ href: `${api.url}/orders/${order.id}/cancel`, method: 'POST' });
    expect(api.events.some((e) => e.kind === 'order.created' && e.order.id === order.id)).toBe(true);
  });

  it('POST /orders: only an admin may name another user; an unknown user is 422', async () => {
    const a = await api.createUser();
    const b = await api.createUser();
    const before = await snapshotData(api.store);
    const forOther = await sendJson(
      `${api.url}/orders`,
      'POST',
      { userId: b.id, items: ITEMS },
      { token: a.token },
    );
    expect(forOther.status).toBe(403);
    const unknown = await sendJson(
      `${api.url}/orders`,
      'POST',
      { userId: randomUUID(), items: ITEMS },
      { token: api.adminToken },
    );
    expect(unknown.status).toBe(422);
    expect(unknown.json().errors[0].pointer).toBe('/userId');
    // An admin token needs no stored user, so it must name one.
    const adminSelf = await sendJson(
      `${api.url}/orders`,
      'POST',
      { items: ITEMS },
      { token: api.adminToken },
    );
    expect(adminSelf.status).toBe(422);
    expect(await snapshotData(api.store)).toBe(before);
    const byAdmin = await sendJson(
      `${api.url}/orders`,
      'POST',
      { userId: b.id, items: ITEMS },
      { token: api.adminToken },
    );
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.json().userId).toBe(b.id);
  });

  it('GET /orders/{order_id}: owner 200 with ETag, another user 403, admin 200, missing 404', async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const order = await placeOrder(owner.token);
    const own = await send(`${api.url}/orders/${order.id}`, { token: owner.token });
    expect(own.status).toBe(200);
    expect(own.json()).toEqual(order);
    expect(own.headers.etag).toMatch(/^"v\d+"$/);
    expect((await send(`${api.url}/orders/${order.id}`, { token: other.token })).status).toBe(403);
    expect((await send(`${api.url}/orders/${order.id}`, { token: api.adminToken })).status).toBe(200);
    expect((await send(`${api.url}/orders/${randomUUID()}`, { token: owner.token })).status).toBe(404);
  });

  it('GET /orders: a user sees only their own orders, paged, and may filter by status', async () => {
    const a = await api.createUser();
    const b = await api.createUser();
    const mine = [await placeOrder(a.token), await placeOrder(a.token), await placeOrder(a.token)];
    await placeOrder(b.token);
    const first = await send(`${api.url}/orders`, { token: a.token });
    expect(first.status).toBe(200);
    expect(first.json().items).toHaveLength(2);
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link as string)?.[1] as string;
    const second = await send(next, { token: a.token });
    expect(second.headers.link).toBeUndefined();
    const ids = [...first.json().items, ...second.json().items].map((o: { id: string }) => o.id);
    expect(ids.sort()).toEqual(mine.map((o) => o.id).sort());
    await sendJson(`${api.url}/orders/${mine[0].id}/cancel`, 'POST', undefined, { token: a.token });
    const cancelled = await send(`${api.url}/orders?status=CANCELLED&limit=10`, { token: a.token });
    expect(cancelled.json().items.map((o: { id: string }) => o.id)).toEqual([mine[0].id]);
    expect((await send(`${api.url}/orders?status=LOST`, { token: a.token })).status).toBe(400);
  });

  it('GET /users/{user_id}/orders and /users/{user_id}/orders/{order_id}', async () => {
    const a = await api.createUser();
    const b = await api.createUser();
    const order = await placeOrder(a.token);
    const list = await send(`${api.url}/users/${a.id}/orders`, { token: a.token });
    expect(list.status).toBe(200);
    expect(list.json().items.map((o: { id: string }) => o.id)).toEqual([order.id]);
    const one = await send(`${api.url}/users/${a.id}/orders/${order.id}`, { token: a.token });
    expect(one.status).toBe(200);
    expect(one.json().id).toBe(order.id);
    expect(
      (await send(`${api.url}/users/${b.id}/orders/${order.id}`, { token: api.adminToken })).status,
    ).toBe(404);
    expect((await send(`${api.url}/users/${b.id}/orders`, { token: a.token })).status).toBe(403);
    expect((await send(`${api.url}/users/${randomUUID()}/orders`, { token: api.adminToken })).status).toBe(
      404,
    );
  });

  it('GET /orders/{order_id}/items lists the items, paged', async () => {
    const a = await api.createUser();
    const order = await placeOrder(a.token, {
      items: [1, 2, 3].map((n) => ({ productName: `Part ${n}`, quantity: n, unitPrice: n })),
    });
    const page1 = await send(`${api.url}/orders/${order.id}/items`, { token: a.token });
    expect(page1.status).toBe(200);
    expect(page1.json().items.map((i: { productName: string }) => i.productName)).toEqual([
      'Part 1',
      'Part 2',
    ]);
    const next = /^<([^>]+)>/.exec(page1.headers.link as string)?.[1] as string;
    const page2 = await send(next, { token: a.token });
    expect(page2.json().items.map((i: { productName: string }) => i.productName)).toEqual(['Part 3']);
    const other = await api.createUser();
    expect((await send(`${api.url}/orders/${order.id}/items`, { token: other.token })).status).toBe(403);
  });

  it('PATCH /orders/{order_id} walks the state machine; the cancel link leaves with PENDING', async () => {
    const a = await api.createUser();
    const order = await placeOrder(a.token);
    const paid = await sendJson(
      `${api.url}/orders/${order.id}`,
      'PATCH',
      { status: 'PAID' },
      { token: a.token },
    );
    expect(paid.status).toBe(200);
    expect(paid.json().status).toBe('PAID');
    expect(paid.json()._links.cancel).toBeUndefined();
    const byUser = await sendJson(
      `${api.url}/orders/${order.id}`,
      'PATCH',
      { status: 'SHIPPED' },
      { token: a.token },
    );
    expect(byUser.status).toBe(403);
    const backwards = await sendJson(
      `${api.url}/orders/${order.id}`,
      'PATCH',
      { status: 'PENDING' },
      { token: api.adminToken },
    );
    expect(backwards.status).toBe(409);
    expect(backwards.json().code).toBe('ORDER_TRANSITION_INVALID');
    for (const status of ['SHIPPED', 'DELIVERED']) {
      const res = await sendJson(
        `${api.url}/orders/${order.id}`,
        'PATCH',
        { status },
        { token: api.adminToken },
      );
      expect(res.status).toBe(200);
      expect(res.json().status).toBe(status);
    }
    const changes = api.events.filter((e) => e.kind === 'order.status-changed' && e.order.id === order.id);
    expect(changes.map((e) => e.order.status)).toEqual(['PAID', 'SHIPPED', 'DELIVERED']);
  });

  it('PATCH /orders/{order_id} with a stale If-Match is 409 and leaves the order as it was', async () => {
    const a = await api.createUser();
    const order = await placeOrder(a.token);
    const read = await send(`${api.url}/orders/${order.id}`, { token: a.token });
    const cancel = await send(`${api.url}/orders/${order.id}/cancel`, {
      method: 'POST',
      token: a.token,
      headers: { 'if-match': read.headers.etag as string },
    });
    expect(cancel.status).toBe(200);
    const before = await snapshotData(api.store);
    const stale = await sendJson(
      `${api.url}/orders/${order.id}`,
      'PATCH',
      { status: 'PAID' },
      { token: a.token, headers: { 'if-match': read.headers.etag as string } },
    );
    expect(stale.status).toBe(409);
    expect(stale.json().code).toBe('PRECONDITION_FAILED');
    expect(await snapshotData(api.store)).toBe(before);
  });

  it('POST /orders/{order_id}/cancel works only from PENDING', async () => {
    const a = await api.createUser();
    const order = await placeOrder(a.token);
    const res = await send(`${api.url}/orders/${order.id}/cancel`, { method: 'POST', token: a.token });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ status: 'CANCELLED' });
    expect(res.json()._links.cancel).toBeUndefined();
    const again = await send(`${api.url}/orders/${order.id}/cancel`, { method: 'POST', token: a.token });
    expect(again.status).toBe(409);
    const other = await api.createUser();
    const second = await placeOrder(a.token);
    expect(
      (await send(`${api.url}/orders/${second.id}/cancel`, { method: 'POST', token: other.token })).status,
    ).toBe(403);
  });

  it('DELETE /orders/{order_id}: 204 with no body, then 404; an owner may not delete a PAID order', async () => {
    const a = await api.createUser();
    const order = await placeOrder(a.token);
    const res = await send(`${api.url}/orders/${order.id}`, { method: 'DELETE', token: a.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-length'] ?? '0').toBe('0');
    expect((await send(`${api.url}/orders/${order.id}`, { token: a.token })).status).toBe(404);
    expect((await send(`${api.url}/orders/${order.id}`, { method: 'DELETE', token: a.token })).status).toBe(
      404,
    );
    const paid = await placeOrder(a.token);
    await sendJson(`${api.url}/orders/${paid.id}`, 'PATCH', { status: 'PAID' }, { token: a.token });
    expect((await send(`${api.url}/orders/${paid.id}`, { method: 'DELETE', token: a.token })).status).toBe(
      409,
    );
    expect(
      (await send(`${api.url}/orders/${paid.id}`, { method: 'DELETE', token: api.adminToken })).status,
    ).toBe(204);
  });

  it('links and Location follow the scheme and host the proxy forwarded (trust proxy)', async () => {
    const a = await api.createUser();
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.test' };
    const res = await sendJson(`${api.url}/orders`, 'POST', { items: ITEMS }, { token: a.token, headers });
    expect(res.status).toBe(201);
    const order = res.json();
    expect(res.headers.location).toBe(`https://api.example.test/orders/${order.id}`);
    for (const link of Object.values(order._links) as Array<{ href: string }>)
      expect(link.href.startsWith('https://api.example.test/')).toBe(true);
    const list = await send(`${api.url}/orders?limit=1`, { token: a.token, headers });
    await placeOrder(a.token);
    const paged = await send(`${api.url}/orders?limit=1`, { token: a.token, headers });
    expect(list.status).toBe(200);
    expect(paged.headers.link).toMatch(/^<https:\/\/api\.example\.test\/orders\?limit=1&cursor=/);
  });
});
