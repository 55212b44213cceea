import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendJson, type TestResponse } from '../support/http-client.js';
import { snapshotData, startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

const ITEM = { productName: 'Widget', quantity: 1, unitPrice: 2.5 };

describe.each(STORE_VARIANTS)('bad input is a clear 4xx and changes nothing ($name)', (variant) => {
  let api: TestApi;
  let user: { id: string; token: string; email: string };
  let orderId: string;
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { bodyLimitBytes: 4_096 } });
    user = await api.createUser({ name: 'Original Name' });
    const created = await sendJson(`${api.url}/orders`, 'POST', { items: [ITEM] }, { token: user.token });
    orderId = created.json().id;
  });
  afterAll(() => api?.close());

  /** Runs `attempt`, checks it is a problem+json 4xx of `status`, and that no table changed. */
  async function expectRejected(status: number, attempt: () => Promise<TestResponse>) {
    const before = await snapshotData(api.store);
    const res = await attempt();
    expect(res.status, res.text).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String) });
    expect(typeof body.detail).toBe('string');
    expect(body.instance).toMatch(/^\//);
    expect(await snapshotData(api.store)).toBe(before);
    return body;
  }

  const raw = (path: string, method: string, body: string | Buffer) => () =>
    send(`${api.url}${path}`, {
      method,
      token: user.token,
      body,
      headers: { 'content-type': 'application/json' },
    });
  const json = (path: string, method: string, body: unknown) => () =>
    sendJson(`${api.url}${path}`, method, body, { token: user.token });

  it('malformed JSON is 400', async () => {
    for (const text of [
      '{"items": [',
      "{items: [{'productName': 1}]}",
      '{"items": [],}',
      '"just a string"',
      '42',
    ])
      expect((await expectRejected(400, raw('/orders', 'POST', text))).code).toBe('MALFORMED_JSON');
    await expectRejected(400, raw(`/users/${user.id}`, 'PATCH', '{"name": "x"'));
  });

  it('a body that is not valid UTF-8 is 400, not silently repaired', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    await expectRejected(400, raw(`/users/${user.id}`, 'PATCH', bytes));
  });

  it('wrong types are 422 listing every offending field by JSON pointer', async () => {
    const body = await expectRejected(
      422,
      json('/orders', 'POST', { items: [{ productName: 7, quantity: '3', unitPrice: 'free' }] }),
    );
    expect(body.code).toBe('VALIDATION_FAILED');
    const pointers = body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(['/items/0/productName', '/items/0/quantity', '/items/0/unitPrice']),
    );
    for (const bad of [
      { items: 'many' },
      { items: [] },
      { items: [{ ...ITEM, quantity: 1.5 }] },
      { items: [{ ...ITEM, quantity: 0 }] },
      { items: [{ ...ITEM, quantity: 1e9 }] },
      { items: [{ ...ITEM, unitPrice: -1 }] },
      { items: [{ ...ITEM, unitPrice: 1.001 }] },
      { userId: 42, items: [ITEM] },
      [],
      {},
    ])
      await expectRejected(422, json('/orders', 'POST', bad));
    await expectRejected(422, json(`/users/${user.id}`, 'PATCH', { email: 'not-an-email' }));
    await expectRejected(422, json(`/users/${user.id}`, 'PATCH', { profile: 'text' }));
    await expectRejected(422, json(`/users/${user.id}`, 'PATCH', {}));
    await expectRejected(422, json(`/orders/${orderId}`, 'PATCH', { status: 5 }));
  });

  it('unknown fields are 422 naming the field', async () => {
    const body = await expectRejected(422, json('/orders', 'POST', { items: [ITEM], totalPrice: 0 }));
    expect(body.errors).toContainEqual({ pointer: '/totalPrice', message: 'is not a known field' });
    await expectRejected(422, json('/orders', 'POST', { items: [{ ...ITEM, discount: 1 }] }));
    await expectRejected(422, json(`/users/${user.id}`, 'PATCH', { isAdmin: true }));
    await expectRejected(422, json(`/orders/${orderId}`, 'PATCH', { status: 'PAID', totalPrice: 0 }));
  });

  it('an oversized body is 413', async () => {
    const big = {
      items: Array.from({ length: 60 }, (_, i) => ({ ...ITEM, productName: `Item ${i} ${'x'.repeat(60)}` })),
    };
    expect(JSON.stringify(big).length).toBeGreaterThan(4_096);
    await expectRejected(413, json('/orders', 'POST', big));
  });

  it('odd Unicode (NUL, lone surrogates, controls, bidi overrides, private use, blank) is 422', async () => {
    for (const name of [
      'nul\u0000byte',
      'half \ud800 pair',
      'bell\u0007',
      'line\nbreak',
      'evil\u202Etxt.exe',
      '\uE000',
      '   ',
    ])
      await expectRejected(422, json(`/users/${user.id}`, 'PATCH', { name }));
    await expectRejected(422, json('/orders', 'POST', { items: [{ ...ITEM, productName: 'x\u0000y' }] }));
    await expectRejected(422, json(`/users/${user.id}`, 'PATCH', { profile: { bio: 'a\u0000b' } }));
    await expectRejected(400, () => send(`${api.url}/users/search?q=%00`, { token: api.adminToken }));
  });

  it('SQL-looking strings in paths, queries and fields are 4xx or plain text, never SQL', async () => {
    await expectRejected(404, () => send(`${api.url}/users/1'%20OR%20'1'='1`, { token: api.adminToken }));
    await expectRejected(404, () =>
      send(`${api.url}/orders/1;DROP%20TABLE%20orders`, { token: api.adminToken }),
    );
    await expectRejected(400, () =>
      send(`${api.url}/orders?limit=1;DROP%20TABLE%20orders`, { token: user.token }),
    );
    await expectRejected(400, () => send(`${api.url}/orders?cursor='%20OR%201=1--`, { token: user.token }));
    await expectRejected(400, () => send(`${api.url}/orders?status=PAID'--`, { token: user.token }));
    await expectRejected(
      422,
      json(`/users/${user.id}`, 'PATCH', { email: "x@example.com'; DROP TABLE users;--" }),
    );
    await expectRejected(422, json(`/orders/${orderId}`, 'PATCH', { status: "PAID'; DROP TABLE orders;--" }));
    const search = await send(`${api.url}/users/search?q=${encodeURIComponent("' OR 1=1 --")}`, {
      token: api.adminToken,
    });
    expect(search.status).toBe(200);
    expect(search.json().items).toEqual([]);
  });

  it('valid but unusual text is stored exactly: emoji, CJK, combining marks (NFC), SQL-looking names', async () => {
    for (const name of ['Zoë 🚀 李小龙', "Robert'); DROP TABLE users;--", 'e\u0301tienne']) {
      const res = await sendJson(`${api.url}/users/${user.id}`, 'PATCH', { name }, { token: user.token });
      expect(res.status).toBe(200);
      expect(res.json().name).toBe(name.normalize('NFC'));
      const read = await send(`${api.url}/users/${user.id}`, { token: user.token });
      expect(read.json().name).toBe(name.normalize('NFC'));
    }
    const tables = await api.store.query("SELECT count(*) AS n FROM users WHERE name LIKE '%DROP TABLE%'");
    expect(tables).toHaveLength(1);
  });
});
