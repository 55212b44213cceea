import type { Redis } from 'ioredis';
import type { Store } from '../store/store.js';

/** The outcome of one dependency check. */
export interface CheckResult {
  status: 'up' | 'down' | 'not-configured';
  latencyMs?: number;
  error?: string;
}

async function timed(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'up', latencyMs: Math.round((performance.now() - started) * 100) / 100 };
  } catch (error) {
    return {
      status: 'down',
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Round trip to the database (`SELECT 1`). */
export function checkDatabase(store: Store, timeoutMs = 2_000): Promise<CheckResult> {
  return timed(() => store.query('SELECT 1'), timeoutMs);
}

/** Round trip to Redis (`PING`), or `not-configured` without REDIS_URL. */
export function checkCache(redis: Redis | undefined, timeoutMs = 2_000): Promise<CheckResult> {
  if (!redis) return Promise.resolve({ status: 'not-configured' });
  return timed(() => redis.ping(), timeoutMs);
}
