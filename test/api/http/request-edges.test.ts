import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendJson, type TestResponse } from '../support/http-client.js';
import { snapshotData, startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

const ITEM = { productName: 'Widget', quantity: 1, unitPrice: 2.5 };

// Requests that reach the API malformed in ways a client library rarely produces, but a script or a
// proxy can: each must be a 4xx problem that changes nothing, never a 500 or a silent success.
describe.each(STORE_VARIANTS)('requests at the edges of HTTP ($name)', (variant) => {
  let api: TestApi;
  let user: { id: string; token: string };
  const newOrder = async () =>
    (await sendJson(`${api.url}/orders`, 'POST', { items: [ITEM] }, { token: user.token })).json() as {
      id: string;
      status: string;
    };
  beforeAll(async () => {
    api = await startTestApi(variant);
    user = await api.createUser();
  });
  afterAll(() => api?.close());

  async function expectProblem(status: number, attempt: () => Promise<TestResponse>) {
    const before = await snapshotData(api.store);
    const res = await attempt();
    expect(res.status, res.text).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(await snapshotData(api.store)).toBe(before);
    return res.json();
  }
  const get =
    (path: string, headers: Record<string, string> = {}) =>
    () =>
      send(`${api.url}${path}`, { token: user.token, headers });

  it('a body that does not decompress, and a path that is not percent-encoding, are 400', async () => {
    for (const encoding of ['gzip', 'deflate', 'br'])
      expect(
        (
          await expectProblem(400, () =>
            send(`${api.url}/orders`, {
              method: 'POST',
              token: user.token,
              body: 'not compressed',
              headers: { 'content-type': 'application/json', 'content-encoding': encoding },
            }),
          )
        ).code,
      ).toBe('BAD_REQUEST');
    const compressed = await send(`${api.url}/orders`, {
      method: 'POST',
      token: user.token,
      body: gzipSync(JSON.stringify({ items: [ITEM] })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(compressed.status, compressed.text).toBe(201);
    for (const path of ['/orders/%ZZ', '/users/%E0%A4%A', '/orders/%ZZ/items'])
      expect((await expectProblem(400, get(path))).detail).toBe(
        'the request path is not valid percent-encoding',
      );
  });

  it('limit is decimal digits: Infinity, hex, exponents and padding are 400 naming /limit', async () => {
    for (const limit of ['Infinity', '-Infinity', '0x10', '1e1', '%201', 'NaN'])
      expect((await expectProblem(400, get(`/orders?limit=${limit}`))).errors).toContainEqual({
        pointer: '/limit',
        message: 'must be an integer',
      });
    expect((await get('/orders?limit=2')()).status).toBe(200);
  });

  it('a user token whose subject is not a user id is 401', async () => {
    const token = await api.tokenFor('ops', 'user');
    const res = await send(`${api.url}/orders`, { token });
    expect(res.status, res.text).toBe(401);
    expect(res.headers['www-authenticate']).toContain('invalid_token');
  });

  it('cancel and delete take no body: anything but {} is refused and the order stays', async () => {
    const order = await newOrder();
    const cancel =
      (body: string, type = 'application/json') =>
      () =>
        send(`${api.url}/orders/${order.id}/cancel`, {
          method: 'POST',
          token: user.token,
          body,
          headers: { 'content-type': type },
        });
    expect((await expectProblem(400, cancel('{garbage'))).code).toBe('MALFORMED_JSON');
    expect((await expectProblem(415, cancel('hello', 'text/plain'))).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await expectProblem(422, cancel('{"reason":"x"}'))).errors).toEqual([
      { pointer: '', message: 'must be empty or {}' },
    ]);
    await expectProblem(422, cancel('[]'));
    await expectProblem(400, () =>
      send(`${api.url}/orders/${order.id}`, {
        method: 'DELETE',
        token: user.token,
        body: '{garbage',
        headers: { 'content-type': 'application/json' },
      }),
    );
    const empty = await cancel('{}')();
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json().status).toBe('CANCELLED');
    // No body at all, even with a JSON Content-Type, is the usual form.
    const other = await newOrder();
    const bare = await send(`${api.url}/orders/${other.id}/cancel`, {
      method: 'POST',
      token: user.token,
      headers: { 'content-type': 'application/json' },
    });
    expect(bare.status, bare.text).toBe(200);
  });

  it('If-Match with a list passes when any tag is current', async () => {
    const order = await newOrder();
    const patch = (ifMatch: string) =>
      sendJson(
        `${api.url}/orders/${order.id}`,
        'PATCH',
        { status: 'PAID' },
        { token: user.token, headers: { 'if-match': ifMatch } },
      );
    expect((await patch('"v9", W/"v1"')).status).toBe(409);
    const res = await patch('"v9", "v1"');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.etag).toBe('"v2"');
  });

  it('application/json;q=0 is refused even beside */*', async () => {
    expect((await expectProblem(406, get('/orders', { accept: 'application/json;q=0, */*' }))).code).toBe(
      'NOT_ACCEPTABLE',
    );
    expect((await get('/orders', { accept: '*/*' })()).status).toBe(200);
  });

  it('health, metrics and the OpenAPI document answer other methods with 405 and Allow, OPTIONS with 204', async () => {
    for (const path of ['/health/live', '/health/ready', '/metrics', '/openapi.json']) {
      const put = await expectProblem(405, () => send(`${api.url}${path}`, { method: 'PUT' }));
      expect(put.code).toBe('METHOD_NOT_ALLOWED');
      const options = await send(`${api.url}${path}`, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('instance is the path: a query string is never echoed back', async () => {
    const body = await expectProblem(400, get('/orders?limit=abc&secret=hunter2'));
    expect(body.instance).toBe('/orders');
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });
});
