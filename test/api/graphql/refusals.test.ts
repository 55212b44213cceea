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

  it('a body that does not decompress is 400 BAD_REQUEST, not a server fault', async () => {
    await expectRefused(
      { method: 'POST', body: 'not gzip', headers: { ...json, 'content-encoding': 'gzip' } },
      400,
      'BAD_REQUEST',
    );
  });
});
