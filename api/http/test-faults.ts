import type { RequestHandler } from 'express';

/**
 * The test-only faults of `--test-delay-ms` and `--test-error-permille`, for `npm run bench:gates`
 * (a version made slow or failing on purpose, deployed with `deploy --env`). Placed after the health
 * checks, which stay fast and healthy: a deploy must judge such a version by its answers, not lose
 * it at its readiness check. Null when neither is set, so a normal instance has no such step.
 */
export function createTestFaults(options: { delayMs: number; errorPermille: number }): RequestHandler | null {
  const { delayMs, errorPermille } = options;
  if (delayMs === 0 && errorPermille === 0) return null;
  let count = 0;
  return (_req, res, next) => {
    // Request n fails when n × permille crosses a multiple of 1000: exactly that share, evenly spread.
    const n = count++;
    const fails = Math.floor(((n + 1) * errorPermille) / 1000) > Math.floor((n * errorPermille) / 1000);
    const answer = () => {
      if (!fails) return next();
      res
        .status(500)
        .type('application/problem+json')
        .json({ type: 'about:blank', title: 'Injected failure', status: 500, code: 'TEST_FAULT' });
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  };
}
