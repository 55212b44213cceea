import { Router, type Response } from 'express';
import type { Redis } from 'ioredis';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { sendProblem } from '../http/problem.js';
import type { Store } from '../store/store.js';
import { checkCache, checkDatabase } from './checks.js';
import type { HealthState } from './health-state.js';

/** What the health endpoints look at. */
export interface HealthDeps {
  state: HealthState;
  store: Store;
  redis?: Redis;
}

function sendOk(res: Response, body: unknown): void {
  res.setHeader('Cache-Control', 'no-store');
  res.status(200).json(body);
}

/**
 * GET /health/live (the process only), /health/ready (the database; 503 while starting or
 * draining) and /health/deep (database and cache with latency; monitoring only).
 */
export function createHealthRouter(deps: HealthDeps): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/health/live', (_req, res) => {
    sendOk(res, { status: 'live', uptimeSeconds: Math.round(process.uptime()) });
  });
  router.get('/health/ready', async (req, res) => {
    if (deps.state.phase !== 'ready')
      return sendProblem(req, res, new ProxyopsError('NOT_READY', `the instance is ${deps.state.phase}`), {
        phase: deps.state.phase,
      });
    const database = await checkDatabase(deps.store);
    if (database.status !== 'up')
      return sendProblem(req, res, new ProxyopsError('NOT_READY', 'the database does not answer'), {
        phase: deps.state.phase,
        checks: { database },
      });
    sendOk(res, { status: 'ready', phase: deps.state.phase, checks: { database } });
  });
  router.get('/health/deep', async (req, res) => {
    const [database, cache] = await Promise.all([checkDatabase(deps.store), checkCache(deps.redis)]);
    const checks = { database, cache };
    if (database.status === 'down' || cache.status === 'down')
      return sendProblem(req, res, new ProxyopsError('NOT_READY', 'a dependency is down'), {
        phase: deps.state.phase,
        checks,
      });
    sendOk(res, { status: 'up', phase: deps.state.phase, checks });
  });
  return router;
}
