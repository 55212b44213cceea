import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendJson } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

describe.each(STORE_VARIANTS)('HTTP protocol rules ($name)', (variant) => {
  let api: TestApi;
  let user: { id: string; token: string };
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { bodyLimitBytes: 2_048 } });
    user = await api.createUser();
  });
  afterAll(() => api?.close());

  it('a trailing slash is answered 308 to the canonical path, query kept', async () => {
    const res = await send(`${api.url}/users/${user.id}/?x=1`, { token: user.token });
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe(`${api.url}/users/${user.id}?x=1`);
    const post = await sendJson(`${api.url}/orders/`, 'POST', {}, { token: user.token });
    expect(post.status).toBe(308);
    const proxied = await send(`${api.url}/orders/`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example.test' },
    });
    expect(proxied.headers.location).toBe('https://shop.example.test/orders');
  });

  it('paths are lowercase: /Users is 404, unknown paths are 404 problem+json', async () => {
    for (const path of ['/Users', '/nothing-here', '/users_list']) {
      const res = await send(`${api.url}${path}`, { token: user.token });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
  });

  it('an Accept the API cannot satisfy is 406; JSON, wildcards and no Accept are fine', async () => {
    const res = await send(`${api.url}/users/${user.id}`, {
      token: user.token,
      headers: { accept: 'text/html' },
    });
    expect(res.status).toBe(406);
    expect(res.json()).toMatchObject({ status: 406, code: 'NOT_ACCEPTABLE' });
    for (const accept of ['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.5'])
      expect(
        (await send(`${api.url}/users/${user.id}`, { token: user.token, headers: { accept } })).status,
      ).toBe(200);
    expect((await send(`${api.url}/users/${user.id}`, { token: user.token })).status).toBe(200);
  });

  it('a method the path does not have is 405 with Allow; OPTIONS lists the same', async () => {
    const res = await send(`${api.url}/users/${user.id}`, { method: 'DELETE', token: user.token });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PATCH, HEAD, OPTIONS');
    const put = await send(`${api.url}/orders`, { method: 'PUT', token: user.token });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    const options = await send(`${api.url}/orders`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe(put.headers.allow);
  });

  it('a body over the limit is 413 from this layer (Server header names it)', async () => {
    const big = JSON.stringify({ items: [{ productName: 'x'.repeat(3_000), quantity: 1, unitPrice: 1 }] });
    const res = await send(`${api.url}/orders`, {
      method: 'POST',
      token: user.token,
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.headers.server).toBe('proxyops-api');
    expect(res.json()).toMatchObject({ status: 413, code: 'BODY_TOO_LARGE' });
  });

  it('a body that is not JSON is 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await send(`${api.url}/orders`, {
        method: 'POST',
        token: user.token,
        body: 'items=1',
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(415);
      expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const noType = await send(`${api.url}/orders`, {
      method: 'POST',
      token: user.token,
      body: '{"items":[]}',
    });
    expect(noType.status).toBe(415);
  });

  it('no or bad credentials are 401 with WWW-Authenticate: Bearer', async () => {
    const none = await send(`${api.url}/orders`);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="proxyops"');
    const basic = await send(`${api.url}/orders`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    const forged = `${user.token.slice(0, -4)}AAAA`;
    const bad = await send(`${api.url}/orders`, { token: forged });
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer realm="proxyops", error="invalid_token"/);
    const { createToken } = await import('../../../api/auth/tokens.js');
    const expired = await createToken({ id: user.id, role: 'user' }, api.secret, -60);
    const late = await send(`${api.url}/orders`, { token: expired });
    expect(late.status).toBe(401);
    expect(late.json().detail).toContain('expired');
    const otherSecret = await createToken(
      { id: user.id, role: 'admin' },
      new TextEncoder().encode('x'.repeat(40)),
    );
    expect((await send(`${api.url}/orders`, { token: otherSecret })).status).toBe(401);
  });

  it('X-Request-ID from the proxy is echoed, in the problem body and in every log line; absent, one is made', async () => {
    const id = `req-${Date.now()}`;
    const res = await send(`${api.url}/users/${user.id}`, { token: 'nope', headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.json().requestId).toBe(id);
    await expect
      .poll(() => api.logLines.find((line) => line.requestId === id && line.msg === 'request completed'))
      .toMatchObject({
        level: 40,
        req: { method: 'GET', url: `/users/${user.id}`, remoteAddress: expect.any(String) },
        res: { statusCode: 401 },
        responseTime: expect.any(Number),
      });
    const made = await send(`${api.url}/health/live`);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const requestLines = api.logLines.filter((line) => 'req' in line || 'res' in line);
    expect(requestLines.length).toBeGreaterThan(0);
    for (const line of requestLines) expect(typeof line.requestId).toBe('string');
    const hostile = await send(`${api.url}/health/live`, { headers: { 'x-request-id': 'a b"<script>' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a client that leaves before the answer gets a "request aborted" access line with its id', async () => {
    const id = `gone-${Date.now()}`;
    const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
    await once(socket, 'connect');
    // The API answers "100 Continue" once it handles the request; the client then hangs up.
    socket.write(
      `POST /orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nX-Request-ID: ${id}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n',
    );
    const [reply] = (await once(socket, 'data')) as [Buffer];
    expect(reply.toString('latin1')).toMatch(/^HTTP\/1\.1 100 Continue/);
    socket.destroy();
    await expect
      .poll(() => api.logLines.find((line) => line.requestId === id))
      .toMatchObject({ level: 40, msg: 'request aborted', req: { method: 'POST', url: '/orders' } });
  });

  it('every response names this layer in Server, states Cache-Control and has no X-Powered-By', async () => {
    const responses = [
      await send(`${api.url}/users/${user.id}`, { token: user.token }),
      await send(`${api.url}/orders`, { token: user.token }),
      await sendJson(`${api.url}/orders`, 'POST', { items: [] }, { token: user.token }),
      await send(`${api.url}/nowhere`),
      await send(`${api.url}/orders/`),
      await send(`${api.url}/health/ready`),
      await send(`${api.url}/openapi.json`),
    ];
    for (const res of responses) {
      expect(res.headers.server).toBe('proxyops-api');
      expect(res.headers['cache-control']).toBeTruthy();
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
    expect(responses[0]?.headers['cache-control']).toBe('private, no-cache');
    expect(responses[2]?.headers['cache-control']).toBe('no-store');
  });

  it('HEAD of a resource has the headers of GET and no body', async () => {
    const res = await send(`${api.url}/users/${user.id}`, { method: 'HEAD', token: user.token });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toMatch(/^"v\d+"$/);
    expect(res.text).toBe('');
  });
});
