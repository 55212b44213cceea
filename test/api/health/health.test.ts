import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../../support/services.js';
import { send } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

describe.each(STORE_VARIANTS)('health endpoints ($name)', (variant) => {
  let api: TestApi;
  let redis: Redis | undefined;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    api = await startTestApi(variant, { deps: { redis } });
  });
  afterAll(async () => {
    await api?.close();
    redis?.disconnect();
  });

  it('GET /health/live answers 200 without looking at dependencies, never cached', async () => {
    const res = await send(`${api.url}/health/live`);
    expect(res.status).toBe(200);
    expect(res.json().status).toBe('live');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('GET /health/ready is 200 once ready, 503 problem+json while starting or draining', async () => {
    const ready = await send(`${api.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.json().checks.database.status).toBe('up');
    for (const phase of ['starting', 'draining'] as const) {
      api.health.phase = phase;
      const res = await send(`${api.url}/health/ready`);
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.headers['retry-after']).toBeTruthy();
      expect(res.json()).toMatchObject({ status: 503, code: 'NOT_READY', phase });
      // Liveness must not follow readiness: a draining instance is not to be restarted.
      expect((await send(`${api.url}/health/live`)).status).toBe(200);
    }
    api.health.phase = 'ready';
  });

  it('GET /health/deep reports database and cache with per-dependency latency', async () => {
    const res = await send(`${api.url}/health/deep`);
    expect(res.status).toBe(200);
    const { checks } = res.json();
    expect(checks.database.status).toBe('up');
    expect(checks.database.latencyMs).toBeGreaterThanOrEqual(0);
    if (redis) {
      expect(checks.cache.status).toBe('up');
      expect(checks.cache.latencyMs).toBeGreaterThanOrEqual(0);
    } else expect(checks.cache.status).toBe('not-configured');
  });
});

describe.each(STORE_VARIANTS)('when the database is gone ($name)', (variant) => {
  let api: TestApi;
  let userToken: string;
  beforeAll(async () => {
    api = await startTestApi(variant);
    userToken = (await api.createUser()).token;
    await api.store.close();
  });
  afterAll(async () => {
    // The store is already closed; only the listener and the schema remain.
    await api?.close().catch(() => undefined);
  });

  it('a request that needs it is 500 problem+json with the request id and no stack or driver text', async () => {
    const res = await send(`${api.url}/orders`, { token: userToken, headers: { 'x-request-id': 'fault-1' } });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status: 500, code: 'INTERNAL', requestId: 'fault-1' });
    expect(res.text).not.toMatch(/\bat .+\.(js|ts):\d+/);
    expect(res.text).not.toMatch(/pglite|pool|closed|ended/i);
    const logged = api.logLines.find((line) => line.requestId === 'fault-1' && line.err);
    expect(logged).toBeDefined();
  });

  it('readiness and the deep check are 503; liveness stays 200', async () => {
    expect((await send(`${api.url}/health/ready`)).status).toBe(503);
    const deep = await send(`${api.url}/health/deep`);
    expect(deep.status).toBe(503);
    expect(deep.json().checks.database.status).toBe('down');
    expect((await send(`${api.url}/health/live`)).status).toBe(200);
  });
});
