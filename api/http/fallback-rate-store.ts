import { MemoryStore, type IncrementResponse, type Options, type Store } from 'express-rate-limit';

/** After a failure, how long the limiter counts in memory before it asks the shared store again. */
const RETRY_SHARED_AFTER_MS = 5_000;

const FAILED = Symbol('failed');

/** Options of a shared rate-limit store with a per-instance fallback. */
export interface FallbackStoreOptions {
  /** The shared store (Redis): counts across instances while it answers. */
  shared: Store;
  /** Longest wait for one answer of the shared store. */
  timeoutMs: number;
  /** Told once each time the limiter falls back to memory. */
  onFallback?: (error: unknown) => void;
  retryAfterMs?: number;
}

function withTimeout<T>(work: () => Promise<T> | T, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.resolve().then(work),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * A rate-limit store that counts in the shared store while it answers within `timeoutMs`, and
 * otherwise in this instance's memory (a per-instance limit) for `retryAfterMs` before trying the
 * shared store again. A stalled or dead Redis so costs a request at most one bounded wait, and the
 * limit still holds, per instance, while Redis is out. The shared store's `init` is retried until it
 * succeeds (rate-limit-redis loads its scripts there, which fails while Redis is down).
 */
export function createFallbackStore(options: FallbackStoreOptions): Store {
  const { shared, timeoutMs } = options;
  const retryAfterMs = options.retryAfterMs ?? RETRY_SHARED_AFTER_MS;
  const memory = new MemoryStore();
  let limiterOptions: Options | undefined;
  let sharedReady = false;
  let downUntil = 0;

  const onShared = async <T>(work: () => Promise<T> | T): Promise<T | typeof FAILED> => {
    if (Date.now() < downUntil) return FAILED;
    try {
      if (!sharedReady) {
        await withTimeout(() => (limiterOptions ? shared.init?.(limiterOptions) : undefined), timeoutMs);
        sharedReady = true;
      }
      return await withTimeout(work, timeoutMs);
    } catch (error) {
      if (Date.now() >= downUntil) options.onFallback?.(error);
      downUntil = Date.now() + retryAfterMs;
      sharedReady = false;
      return FAILED;
    }
  };

  return {
    init(limiter) {
      limiterOptions = limiter;
      memory.init(limiter);
    },
    async increment(key): Promise<IncrementResponse> {
      const counted = await onShared(() => shared.increment(key));
      return counted === FAILED ? memory.increment(key) : counted;
    },
    async decrement(key) {
      if ((await onShared(() => shared.decrement(key))) === FAILED) await memory.decrement(key);
    },
    async resetKey(key) {
      await memory.resetKey(key);
      await onShared(() => shared.resetKey(key));
    },
    shutdown: () => memory.shutdown(),
  };
}
