/** A client's count in the current window, as a rate-limit store reports it. */
export interface RateLimitCount {
  limit: number;
  totalHits: number;
  /** When the window ends; a store that does not say leaves the whole window. */
  resetTime: Date | undefined;
  windowMs: number;
}

/** Whole seconds until the window ends (never negative). */
export function secondsToReset(count: RateLimitCount, now: number): number {
  if (!count.resetTime) return Math.ceil(count.windowMs / 1000);
  return Math.max(0, Math.ceil((count.resetTime.getTime() - now) / 1000));
}

/**
 * The IETF draft-6 rate-limit headers (RateLimit-Policy, -Limit, -Remaining, -Reset), as
 * express-rate-limit's `standardHeaders: 'draft-6'` wrote them, so clients see the same answer.
 */
export function rateLimitHeaders(count: RateLimitCount, now: number): Array<[string, string]> {
  return [
    ['RateLimit-Policy', `${count.limit};w=${Math.ceil(count.windowMs / 1000)}`],
    ['RateLimit-Limit', String(count.limit)],
    ['RateLimit-Remaining', String(Math.max(count.limit - count.totalHits, 0))],
    ['RateLimit-Reset', String(secondsToReset(count, now))],
  ];
}
