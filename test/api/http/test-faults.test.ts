import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

// The test-only knobs bench:gates deploys a bad version with (`deploy --env PROXYOPS_TEST_…`).
describe('test faults of the API (--test-error-permille, --test-delay-ms)', () => {
  const variant = STORE_VARIANTS[0]!;
  let api: TestApi;
  let token: string;
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { testErrorPermille: 50, testDelayMs: 5 } });
    token = (await api.createUser()).token;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers 500 to exactly that many requests per thousand, evenly spread; health checks are left alone', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await send(`${api.url}/orders`, { token })).status);
    expect(statuses.filter((s) => s === 500)).toHaveLength(5);
    expect(statuses.filter((s) => s === 200)).toHaveLength(95);
    // Evenly spread: one in each twenty.
    for (let k = 0; k < 5; k++)
      expect(statuses.slice(k * 20, k * 20 + 20).filter((s) => s === 500)).toHaveLength(1);
    for (let i = 0; i < 40; i++) expect((await send(`${api.url}/health/ready`)).status).toBe(200);
  });
});

describe('a delay on one route only (--test-delay-route)', () => {
  const variant = STORE_VARIANTS[0]!;
  let api: TestApi;
  let user: { id: string; token: string };
  beforeAll(async () => {
    // Long enough that every other request of the case is answered while the delayed one waits.
    api = await startTestApi(variant, { config: { testDelayMs: 10_000, testDelayRoute: 'POST /orders' } });
    user = await api.createUser();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('POST /orders waits; GET /orders and the users are answered meanwhile', async () => {
    let posted = false;
    const { token } = user;
    const post = send(`${api.url}/orders`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productName: 'slow', quantity: 1, unitPrice: 1 }] }),
    }).then((r) => ((posted = true), r));
    for (let i = 0; i < 10; i++) {
      expect((await send(`${api.url}/orders`, { token })).status).toBe(200);
      expect((await send(`${api.url}/users/${user.id}`, { token })).status).toBe(200);
    }
    expect(posted).toBe(false);
    expect((await post).status).toBe(201);
  }, 60_000);

  it('--test-delay-route takes a method and a path prefix, or a prefix alone', async () => {
    const { isOfRoute } = await import('../../../api/http/test-faults.js');
    expect(isOfRoute('', { method: 'GET', path: '/users/1' })).toBe(true);
    expect(isOfRoute('POST /orders', { method: 'POST', path: '/orders' })).toBe(true);
    expect(isOfRoute('POST /orders', { method: 'POST', path: '/orders/42/cancel' })).toBe(true);
    expect(isOfRoute('POST /orders', { method: 'GET', path: '/orders' })).toBe(false);
    expect(isOfRoute('POST /orders', { method: 'POST', path: '/ordersx' })).toBe(false);
    expect(isOfRoute('/orders', { method: 'GET', path: '/orders/42' })).toBe(true);
    expect(isOfRoute('/users/', { method: 'GET', path: '/users/1' })).toBe(true);
    expect(isOfRoute('/users', { method: 'GET', path: '/orders' })).toBe(false);
  });

  it('is a step only when one of them is set', async () => {
    const { frontMiddleware } = await import('../../../api/http/app.js');
    const { TEST_CONFIG } = await import('../support/harness.js');
    type Deps = Parameters<typeof frontMiddleware>[0];
    const steps = (config: typeof TEST_CONFIG) => frontMiddleware({ config } as Deps).map(([name]) => name);
    expect(steps(api.config)).toContain('test faults');
    expect(steps(TEST_CONFIG)).not.toContain('test faults');
  });
});
