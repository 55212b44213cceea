import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, resolveJwtSecret } from '../../../api/auth/tokens.js';
import { API_DEFAULTS, type ApiConfig } from '../../../api/defaults.js';
import { startApiServer, type RunningServer } from '../../../api/server.js';
import { startOwnPostgres, startOwnRedis, type OwnServer } from '../../support/own-services.js';
import { sendJson } from '../support/http-client.js';
import { attempt, runLoad, tally, type Outcome } from '../support/load.js';

// Our own servers, so the test can stop and kill them; the timeouts are short so phases stay short.
const CONFIG: ApiConfig = {
  ...API_DEFAULTS,
  port: 0,
  rateLimitMax: 1_000_000,
  dbConnectTimeoutMs: 1_000,
  dbQueryTimeoutMs: 1_000,
  redisTimeoutMs: 200,
};
// Far above every bound the server promises (connect + query timeout), so a timeout here is a hang.
const CLIENT_TIMEOUT_MS = 6_000;
const ENV = { PROXYOPS_JWT_SECRET: 'failing-dependencies-secret-that-is-long-enough-0123' };

let postgres: OwnServer;
let redis: OwnServer;
let api: RunningServer;
// A second instance with a small limit: the limit must still hold, per instance, while Redis is out.
let limited: RunningServer;
let token: string;
const LIMIT = 20;

const load = (durationMs: number) =>
  runLoad({ url: `${api.url}/orders`, token, durationMs, clients: 6, timeoutMs: CLIENT_TIMEOUT_MS });
/** `LIMIT + 10` requests one after the other to the limited instance. */
async function overTheLimit(): Promise<Record<string, number>> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < LIMIT + 10; i++)
    outcomes.push(await attempt(`${limited.url}/orders`, token, CLIENT_TIMEOUT_MS));
  return tally(outcomes);
}

/** Over the limit with Redis out: 200s, then 429s from this instance's own count; nothing else. */
function expectLimitedPerInstance(counts: Record<string, number>): void {
  expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(
    counts['200'] === undefined ? ['429'] : ['200', '429'],
  );
  expect(counts['200'] ?? 0).toBeLessThanOrEqual(LIMIT);
}

const ready = () => attempt(`${api.url}/health/ready`, token, CLIENT_TIMEOUT_MS);

async function waitUntilReady(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await ready()).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the API never became ready again');
}

/** Every answer a client saw while the database was out: a retryable 503 problem, or a 200 in flight. */
function expectRetryable503s(outcomes: Outcome[]): void {
  const counts = tally(outcomes);
  expect(counts['503'] ?? 0, JSON.stringify(counts)).toBeGreaterThan(0);
  expect(Object.keys(counts).filter((status) => status !== '503' && status !== '200')).toEqual([]);
  for (const outcome of outcomes.filter((o) => o.status === 503)) {
    expect(outcome.retryAfter).toMatch(/^\d+$/);
    expect(outcome.contentType).toMatch(/^application\/problem\+json/);
    expect(outcome.code).toBe('DATABASE_UNAVAILABLE');
  }
}

describe('dependencies that fail under load (own PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
    api = await startApiServer({
      config: CONFIG,
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      env: ENV,
      signals: [],
      logger: pino({ level: 'silent' }),
    });
    limited = await startApiServer({
      config: { ...CONFIG, rateLimitMax: LIMIT },
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      env: ENV,
      signals: [],
      logger: pino({ level: 'silent' }),
    });
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const rows = await client.query<{ id: string }>(
      "INSERT INTO users (name, email) VALUES ('Load', 'load@example.com') RETURNING id",
    );
    await client.end();
    token = await createToken({ id: rows.rows[0]?.id ?? '', role: 'user' }, resolveJwtSecret(ENV));
    expect(tally(await load(500))).toEqual({ 200: expect.any(Number) });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([api?.shutdown('test', false), limited?.shutdown('test', false)]);
    await Promise.all([postgres?.stop(), redis?.stop()]);
  }, 30_000);

  it('Redis stopped (SIGSTOP): requests keep getting 200, readiness stays 200, the limit holds per instance; so after SIGCONT', async () => {
    redis.signal('SIGSTOP');
    try {
      expect(tally(await load(1_500))).toEqual({ 200: expect.any(Number) });
      expect((await ready()).status).toBe(200);
      expectLimitedPerInstance(await overTheLimit());
    } finally {
      redis.signal('SIGCONT');
    }
    expect(tally(await load(500))).toEqual({ 200: expect.any(Number) });
  }, 30_000);

  it('Redis killed: requests keep getting 200 and the limit holds per instance; so after it restarts', async () => {
    await redis.kill();
    expect(tally(await load(1_500))).toEqual({ 200: expect.any(Number) });
    expect((await ready()).status).toBe(200);
    expectLimitedPerInstance(await overTheLimit());
    await redis.restart();
    expect(tally(await load(500))).toEqual({ 200: expect.any(Number) });
  }, 30_000);

  it('PostgreSQL stopped (SIGSTOP): 503 + Retry-After problems, never 500 or a hang; readiness 503; 200 after SIGCONT', async () => {
    postgres.signal('SIGSTOP');
    try {
      expectRetryable503s(await load(3_000));
      expect((await ready()).status).toBe(503);
    } finally {
      postgres.signal('SIGCONT');
    }
    await waitUntilReady();
    expect(tally(await load(500))).toEqual({ 200: expect.any(Number) });
  }, 60_000);

  it('PostgreSQL killed: 503 + Retry-After problems, never 500; readiness 503; 200 after a restart', async () => {
    await postgres.kill();
    expectRetryable503s(await load(1_500));
    const readiness = await ready();
    expect(readiness.status).toBe(503);
    // GraphQL says the same in its own terms: SERVICE_UNAVAILABLE with Retry-After, not a fault.
    const graphql = await sendJson(`${api.url}/graphql`, 'POST', { query: '{ me { id } }' }, { token });
    expect(graphql.headers['retry-after']).toMatch(/^\d+$/);
    expect(graphql.json().errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(readiness.retryAfter).toMatch(/^\d+$/);
    await postgres.restart();
    await waitUntilReady();
    expect(tally(await load(500))).toEqual({ 200: expect.any(Number) });
  }, 60_000);
});
