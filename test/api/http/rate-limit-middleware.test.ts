import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { createRateLimit, type RateLimitOptions } from '../../../api/http/rate-limit.js';
import { rateLimitHeaders, secondsToReset } from '../../../api/http/rate-limit-headers.js';
import { REDIS_URL } from '../../support/services.js';
import { captureLogs } from '../support/harness.js';

// The limiter alone, on a bare app whose error handler answers with the error's code.
const servers: Server[] = [];
async function limitedApp(options: Partial<RateLimitOptions>): Promise<string> {
  const app = express();
  app.use(createRateLimit({ max: 2, windowMs: 60_000, redisTimeoutMs: 200, ...options }));
  app.get('/', (_req, res) => res.json({ ok: true }));
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status(isProxyopsError(error) && error.code === 'RATE_LIMITED' ? 429 : 500).json({
      code: isProxyopsError(error) ? error.code : 'other',
    });
  };
  app.use(onError);
  const server = createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

async function statuses(urls: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const url of urls) out.push((await fetch(url)).status);
  return out;
}

describe('rate-limit headers', () => {
  it('are the draft-6 set, counting down to zero, never below', () => {
    const resetTime = new Date(10_000 + 30_500);
    const count = { limit: 5, totalHits: 2, resetTime, windowMs: 60_000 };
    expect(rateLimitHeaders(count, 10_000)).toEqual([
      ['RateLimit-Policy', '5;w=60'],
      ['RateLimit-Limit', '5'],
      ['RateLimit-Remaining', '3'],
      ['RateLimit-Reset', '31'],
    ]);
    expect(rateLimitHeaders({ ...count, totalHits: 9 }, 10_000)[2]).toEqual(['RateLimit-Remaining', '0']);
  });

  it('reset: the whole window when the store gives no end, never negative', () => {
    expect(secondsToReset({ limit: 1, totalHits: 1, resetTime: undefined, windowMs: 1_500 }, 0)).toBe(2);
    expect(secondsToReset({ limit: 1, totalHits: 1, resetTime: new Date(0), windowMs: 1_000 }, 5_000)).toBe(
      0,
    );
  });
});

describe('rate-limit middleware', () => {
  it('in memory: past the limit, RATE_LIMITED with Retry-After; every answer carries the headers', async () => {
    const url = await limitedApp({});
    const answers = [await fetch(url), await fetch(url), await fetch(url)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['1', '0', '0']);
    for (const answer of answers) {
      expect(answer.headers.get('ratelimit-limit')).toBe('2');
      expect(answer.headers.get('ratelimit-policy')).toBe('2;w=60');
      expect(Number(answer.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    expect(answers[0]?.headers.get('retry-after')).toBeNull();
    expect(Number(answers[2]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await answers[2]?.json()).toEqual({ code: 'RATE_LIMITED' });
  });

  it('in memory: each limiter counts alone', async () => {
    const [one, two] = [await limitedApp({}), await limitedApp({})];
    expect(await statuses([one!, two!, one!, two!, one!])).toEqual([200, 200, 200, 200, 429]);
  });

  it('with Redis: limiters that share a prefix share the count, under that prefix', async () => {
    const redis = new Redis(REDIS_URL as string, { maxRetriesPerRequest: 1 });
    const prefix = `proxyops-test:${randomUUID()}:`;
    try {
      const [one, two] = [await limitedApp({ redis, prefix }), await limitedApp({ redis, prefix })];
      expect(await statuses([one!, two!, one!])).toEqual([200, 200, 429]);
      expect(await redis.keys(`${prefix}*`)).toEqual([`${prefix}127.0.0.1`]);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('with a Redis that never answers: counts per instance, says so once, and lets requests through', async () => {
    // A server that accepts connections and never replies: a stalled Redis.
    const sockets: Socket[] = [];
    const stalled = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const redis = new Redis({
      port: (stalled.address() as AddressInfo).port,
      host: '127.0.0.1',
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
    });
    const { logger, logLines } = captureLogs();
    try {
      const url = await limitedApp({ redis, redisTimeoutMs: 50, logger });
      const answers = [await fetch(url), await fetch(url), await fetch(url)];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['1', '0', '0']);
      await expect
        .poll(() => logLines.filter((line) => String(line.msg).startsWith('Redis did not answer')).length)
        .toBe(1);
    } finally {
      redis.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });
});
