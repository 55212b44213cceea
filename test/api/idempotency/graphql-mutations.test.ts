import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_VARIANTS, startTestApi, type TestApi } from '../support/harness.js';
import { fingerprintRequest } from '../../../api/idempotency/idempotency-key.js';
import { send, sendJson } from '../support/http-client.js';

const CREATE = 'mutation Place($input: CreateOrderInput!) { createOrder(input: $input) { id totalPrice } }';
const input = (productName: string) => ({ items: [{ productName, quantity: 1, unitPrice: 2.5 }] });

describe.each(STORE_VARIANTS)('Idempotency-Key on GraphQL mutations ($name)', (variant) => {
  let api: TestApi;
  let user: { id: string; token: string };
  beforeAll(async () => {
    api = await startTestApi(variant);
    user = await api.createUser();
  });
  afterAll(() => api?.close());

  const ordersOf = async () =>
    Number(
      (
        await api.store.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE user_id = $1', [user.id])
      )[0]?.n,
    );
  const mutate = (key: string, productName: string) =>
    sendJson(
      `${api.url}/graphql`,
      'POST',
      { query: CREATE, variables: { input: input(productName) } },
      { token: user.token, headers: { 'idempotency-key': `"${key}"`, accept: 'application/json' } },
    );

  it('a repeated mutation with the same key gets the stored result; the order is placed once', async () => {
    const before = await ordersOf();
    const key = randomUUID();
    const first = await mutate(key, 'Lamp');
    expect(first.status).toBe(200);
    expect(first.json().data.createOrder.id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await mutate(key, 'Lamp');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    expect(await ordersOf()).toBe(before + 1);
  });

  it('the same key with other variables is 422 IDEMPOTENCY_KEY_REUSED and places nothing', async () => {
    const key = randomUUID();
    expect((await mutate(key, 'Lamp')).status).toBe(200);
    const before = await ordersOf();
    const reused = await mutate(key, 'Chair');
    expect(reused.status).toBe(422);
    expect(reused.json().errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await ordersOf()).toBe(before);
  });

  /** POSTs `text` as the JSON body of a keyed GraphQL request, byte for byte. */
  const mutateRaw = (key: string, text: string) =>
    send(`${api.url}/graphql`, {
      method: 'POST',
      token: user.token,
      body: text,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': key },
    });

  it('a repeat whose body is the same JSON value in other bytes (white space, escapes) replays, as on REST', async () => {
    const key = randomUUID();
    const value = { query: CREATE, variables: { input: input('Lamp') } };
    const first = await mutateRaw(key, JSON.stringify(value));
    expect(first.status).toBe(200);
    const before = await ordersOf();
    const respelled = JSON.stringify(value, null, 2).replace('"Lamp"', '"\\u004camp"');
    expect(respelled).not.toBe(JSON.stringify(value));
    const again = await mutateRaw(key, respelled);
    expect(again.status, again.text).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    expect(await ordersOf()).toBe(before);
  });

  it('a key stored with the fingerprint of the bytes (before the upgrade) still replays', async () => {
    const key = randomUUID();
    const text = JSON.stringify({ query: CREATE, variables: { input: input('Stool') } });
    const first = await mutateRaw(key, text);
    expect(first.status).toBe(200);
    const before = await ordersOf();
    const former = fingerprintRequest(['POST', '/graphql', Buffer.from(text).toString('base64')]);
    const updated = await api.store.query(
      'UPDATE idempotency_keys SET fingerprint = $3 WHERE owner = $1 AND key = $2 RETURNING 1',
      [user.id, key, former],
    );
    expect(updated).toHaveLength(1);
    const again = await mutateRaw(key, text);
    expect(again.status, again.text).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    expect(await ordersOf()).toBe(before);
    // Other bytes of that value do not match a fingerprint of bytes: the former rule, kept for old keys.
    expect((await mutateRaw(key, ` ${text}`)).status).toBe(422);
  });

  it('the key and the REST key space are one per caller: a key used on REST is reused on GraphQL (422)', async () => {
    const key = randomUUID();
    const rest = await sendJson(`${api.url}/orders`, 'POST', input('Desk'), {
      token: user.token,
      headers: { 'idempotency-key': `"${key}"` },
    });
    expect(rest.status).toBe(201);
    expect((await mutate(key, 'Desk')).status).toBe(422);
  });
});
