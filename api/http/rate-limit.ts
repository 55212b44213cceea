import type { RequestHandler } from 'express';
import { ipKeyGenerator, MemoryStore, type Options, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { createFallbackStore } from './fallback-rate-store.js';
import { rateLimitHeaders, secondsToReset } from './rate-limit-headers.js';

/** Settings of the per-client rate limit. */
export interface RateLimitOptions {
  max: number;
  windowMs: number;
  /** Shared counters across instances; in-process memory without it. */
  redis?: Redis;
  /** Key prefix in Redis (tests isolate runs with it). */
  prefix?: string;
  /** Longest wait for Redis before this instance counts alone. */
  redisTimeoutMs: number;
  logger?: Logger;
}

function createStore(options: RateLimitOptions): Store {
  const redis = options.redis;
  if (!redis) return new MemoryStore();
  return createFallbackStore({
    shared: new RedisStore({
      prefix: options.prefix ?? 'proxyops:rate:',
      sendCommand: (command: string, ...args: string[]) =>
        redis.call(command, ...args) as Promise<RedisReply>,
    }),
    timeoutMs: options.redisTimeoutMs,
    onFallback: (error) =>
      options.logger?.warn(
        { err: error },
        'Redis did not answer: rate limits count per instance until it does',
      ),
  });
}

/** An IPv4 address counts alone; an IPv6 one (which always holds a colon) by its /56, as it did. */
const clientKey = (ip: string): string => (ip.includes(':') ? ipKeyGenerator(ip) : ip);

/**
 * Limits each client (its address, as seen through trusted proxies; an IPv6 client by its /56) to
 * `max` requests per window. Every answer carries the draft-6 RateLimit-* headers; above the limit it
 * is 429 with Retry-After. Redis is not required: when it stalls or is down, each instance counts
 * alone (see createFallbackStore), and it shows in /health/deep.
 *
 * The stores are express-rate-limit's and rate-limit-redis's; the middleware is ours because the
 * library's does per-request work this API does not need (option validations, a check that no
 * request is counted twice, several awaits), which cost a fifth of a GET's server time
 * (docs/benchmarks.md, "API").
 */
export function createRateLimit(options: RateLimitOptions): RequestHandler {
  const { max, windowMs } = options;
  const store = createStore(options);
  // The stores read only `windowMs` of the limiter's options.
  store.init?.({ windowMs } as Options);
  return async (req, res, next) => {
    let counted;
    try {
      counted = await store.increment(clientKey(req.ip ?? ''));
    } catch (error) {
      // The fallback store does not fail; should a store fail, the request goes through.
      options.logger?.error({ err: error }, 'the rate-limit store failed: the request is not counted');
      return next();
    }
    const count = { limit: max, totalHits: counted.totalHits, resetTime: counted.resetTime, windowMs };
    const now = Date.now();
    if (!res.headersSent)
      for (const [name, value] of rateLimitHeaders(count, now)) res.setHeader(name, value);
    if (count.totalHits <= max) return next();
    if (!res.headersSent) res.setHeader('Retry-After', String(secondsToReset(count, now)));
    next(
      new ProxyopsError(
        'RATE_LIMITED',
        `more than ${String(max)} requests in ${Math.round(windowMs / 1000)} s from this client`,
      ),
    );
  };
}
