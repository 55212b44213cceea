import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { createFallbackStore } from './fallback-rate-store.js';

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

/**
 * Limits each client (its address, as seen through trusted proxies) to `max` requests per window.
 * Above it: 429 with Retry-After and RateLimit-Limit/-Remaining/-Reset. Redis is not required: when it
 * stalls or is down, each instance counts alone (see createFallbackStore), and it shows in /health/deep.
 */
export function createRateLimit(options: RateLimitOptions): RequestHandler {
  const redis = options.redis;
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.max,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    // The fallback store never fails; should it, a request goes through rather than failing.
    passOnStoreError: true,
    // Our trust-proxy setting is explicit and configurable; the library's guesses only add noise.
    validate: { trustProxy: false, xForwardedForHeader: false },
    ...(redis
      ? {
          store: createFallbackStore({
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
          }),
        }
      : {}),
    handler: (_req, _res, next, settings) => {
      next(
        new ProxyopsError(
          'RATE_LIMITED',
          `more than ${String(settings.limit)} requests in ${Math.round(options.windowMs / 1000)} s from this client`,
        ),
      );
    },
  });
}
