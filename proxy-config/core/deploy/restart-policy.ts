/** How many restarts of one instance `proxyops up` allows within a window before it gives up on it. */
export const RESTART_LIMIT = { count: 5, windowMs: 60_000 } as const;

/**
 * True when an instance that exited may be started again now, given when it was restarted before:
 * a crash loop (an instance that dies at start) is stopped instead of restarted forever.
 */
export function mayRestart(
  restartedAt: readonly number[],
  now: number,
  limit: { count: number; windowMs: number } = RESTART_LIMIT,
): boolean {
  return restartedAt.filter((t) => now - t < limit.windowMs).length < limit.count;
}
