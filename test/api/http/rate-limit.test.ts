import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../../support/services.js';
import { send } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

const LIMIT = 3;

describe.each(STORE_VARIANTS)('rate limit per client ($name)', (variant) => {
  let api: TestApi;
  let token: string;
  let redis: Redis | undefined;
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { rateLimitMax: LIMIT, rateLimitWindowMs: 60_000 } });
    token = (await api.createUser()).token;
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await api?.close();
    redis?.disconnect();
  });

  it('past the limit the answer is 429 problem+json with Retry-After and RateLimit-* headers', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i <= LIMIT; i++) {
      last = await send(`${api.url}/orders`, { token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    expect(last?.headers['content-type']).toContain('application/problem+json');
    expect(last?.json().code).toBe('RATE_LIMITED');
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    expect(last?.headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(last?.headers['ratelimit-remaining']).toBe('0');
    expect(Number(last?.headers['ratelimit-reset'])).toBeGreaterThan(0);
  });

  it('health probes are never limited', async () => {
    for (let i = 0; i < LIMIT + 2; i++) expect((await send(`${api.url}/health/ready`)).status).toBe(200);
  });

  it('with Redis the count is shared by every instance', async () => {
    const prefix = `proxyops-test:${randomUUID()}:`;
    const deps = { redis: redis as Redis, rateLimitPrefix: prefix };
    const one = await api.startSibling(deps);
    const two = await api.startSibling(deps);
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++)
      statuses.push((await send(`${i % 2 ? two.url : one.url}/orders`, { token })).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    const keys = await (redis as Redis).keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    await (redis as Redis).del(...keys);
  });

  it('instances with another prefix on the same Redis (another stack) count apart', async () => {
    const prefixes = [`proxyops-test:${randomUUID()}:`, `proxyops-test:${randomUUID()}:`];
    const [one, two] = await Promise.all(
      prefixes.map((rateLimitPrefix) => api.startSibling({ redis: redis as Redis, rateLimitPrefix })),
    );
    for (const sibling of [one!, two!]) {
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i++) statuses.push((await send(`${sibling.url}/orders`, { token })).status);
      expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    }
    for (const prefix of prefixes) await (redis as Redis).del(...(await (redis as Redis).keys(`${prefix}*`)));
  });
});
