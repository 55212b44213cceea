import type { RequestHandler } from 'express';

/**
 * Whether a request is of `route` (`METHOD /prefix` or `/prefix`, empty: every request): its method,
 * when named, and its path the prefix or below it (`/orders` takes `/orders/1`, not `/ordersX`).
 */
export function isOfRoute(route: string, req: { method: string; path: string }): boolean {
  if (route === '') return true;
  const [method, prefix] = route.includes(' ') ? route.split(' ') : [undefined, route];
  if (method !== undefined && req.method !== method) return false;
  const below = prefix!.endsWith('/') ? prefix! : `${prefix!}/`;
  return req.path === prefix || req.path.startsWith(below);
}

/**
 * The test-only faults of `--test-delay-ms` (on `--test-delay-route` only, when set) and
 * `--test-error-permille`, for `npm run bench:gates` (a version made slow or failing on purpose,
 * deployed with `deploy --env`). Placed after the health checks, which stay fast and healthy: a
 * deploy must judge such a version by its answers, not lose it at its readiness check. Null when
 * neither is set, so a normal instance has no such step.
 */
export function createTestFaults(options: {
  delayMs: number;
  delayRoute: string;
  errorPermille: number;
}): RequestHandler | null {
  const { delayMs, delayRoute, errorPermille } = options;
  if (delayMs === 0 && errorPermille === 0) return null;
  let count = 0;
  return (req, res, next) => {
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
    if (delayMs > 0 && isOfRoute(delayRoute, req)) setTimeout(answer, delayMs);
    else answer();
  };
}
