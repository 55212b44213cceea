import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { send } from '../support/http-client.js';
import { useGraphqlApiOnEmbeddedStore } from './support/graphql-api.js';

// What graphql-http refuses before any operation runs must read like every other GraphQL error:
// a JSON body with errors[].extensions.code and the request id, never an empty body.
describe('refusals of /graphql', () => {
  const api = useGraphqlApiOnEmbeddedStore();

  const expectRefused = async (
    request: Parameters<typeof send>[1],
    status: number,
    code: string,
    path = '/graphql',
  ) => {
    const res = await send(`${api().url}${path}`, request);
    expect(res.status, res.text).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    const [error] = res.json().errors;
    expect(error.extensions).toMatchObject({ code, requestId: res.headers['x-request-id'] });
    return error.message as string;
  };
  const json = { 'content-type': 'application/json', accept: 'application/json' };

  it('a method it does not take is 405 METHOD_NOT_ALLOWED', async () => {
    await expectRefused({ method: 'PUT', body: '{}', headers: json }, 405, 'METHOD_NOT_ALLOWED');
  });

  it('GET without a persisted query (empty, missing, null, {}, or text) is a 400, never a 405: GET is one of its methods', async () => {
    for (const query of [
      '?query=&operationName=&extensions=',
      '',
      '?extensions=%7B%7D',
      '?extensions=null',
      '?query=&operationName=&variables=',
      '?query=%7B__typename%7D',
    ])
      for (const accept of ['application/json', 'application/graphql-response+json']) {
        const message = await expectRefused(
          { method: 'GET', headers: { accept } },
          400,
          'BAD_REQUEST',
          `/graphql${query}`,
        );
        expect(message).toContain('persisted');
      }
  });

  it('a POST without query text or with a malformed hash is a 400 BAD_REQUEST whatever the Accept', async () => {
    const persistedQuery = { version: 1, sha256Hash: 'abc' };
    for (const body of [{}, { extensions: {} }, { query: '{ __typename }', extensions: { persistedQuery } }])
      for (const accept of ['application/json', 'application/graphql-response+json'])
        await expectRefused(
          { method: 'POST', headers: { ...json, accept }, body: JSON.stringify(body) },
          400,
          'BAD_REQUEST',
        );
  });

  it('Allow is GET, POST, HEAD, OPTIONS on every answer that carries it, whatever the method', async () => {
    const allows = new Set<string>();
    for (const method of ['OPTIONS', 'PUT', 'DELETE', 'PATCH']) {
      const res = await send(`${api().url}/graphql`, { method, headers: json, body: '{}' });
      allows.add(String(res.headers.allow));
    }
    // graphql-http's own 405: a persisted mutation over GET.
    const mutation = 'mutation { deleteOrder(id: "x") }';
    const hash = createHash('sha256').update(mutation).digest('hex');
    const persistedQuery = { version: 1, sha256Hash: hash };
    await send(`${api().url}/graphql`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ query: mutation, extensions: { persistedQuery } }),
    });
    const viaGet = await send(
      `${api().url}/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery }))}`,
      { headers: json },
    );
    expect(viaGet.status, viaGet.text).toBe(405);
    allows.add(String(viaGet.headers.allow));
    expect([...allows]).toEqual(['GET, POST, HEAD, OPTIONS']);
  });

  it('HEAD is answered as GET is, status and headers alike, without a body (RFC 9110 §9.3.2)', async () => {
    const query = '{ __typename }';
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    await send(`${api().url}/graphql`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ query, extensions: { persistedQuery } }),
    });
    const persisted = `/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery }))}`;
    for (const [path, status] of [
      [persisted, 200],
      ['/graphql', 400],
    ] as const) {
      const get = await send(`${api().url}${path}`, { headers: json });
      const head = await send(`${api().url}${path}`, { method: 'HEAD', headers: json });
      expect(get.status, get.text).toBe(status);
      expect(get.text).not.toBe('');
      expect(head.status).toBe(status);
      expect(head.text).toBe('');
      for (const name of ['content-type', 'content-length', 'cache-control', 'allow'])
        expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  it('a body that is not JSON is 415, an Accept it cannot meet 406', async () => {
    await expectRefused(
      { method: 'POST', body: 'query { __typename }', headers: { 'content-type': 'text/plain' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    await expectRefused(
      { method: 'POST', body: '{"query":"{ __typename }"}', headers: { ...json, accept: 'text/html' } },
      406,
      'NOT_ACCEPTABLE',
    );
  });

  it('a body in a Content-Encoding the API does not read is 415 UNSUPPORTED_MEDIA_TYPE, as any other 415', async () => {
    await expectRefused(
      { method: 'POST', body: '{}', headers: { ...json, 'content-encoding': 'compress' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('a body that does not decompress is 400 BAD_REQUEST, not a server fault', async () => {
    await expectRefused(
      { method: 'POST', body: 'not gzip', headers: { ...json, 'content-encoding': 'gzip' } },
      400,
      'BAD_REQUEST',
    );
  });
});
