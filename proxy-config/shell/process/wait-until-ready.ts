import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** How a readiness wait ended. */
export interface ReadyResult {
  ready: boolean;
  ms: number;
  /** Last status seen (0: no answer); why it gave up when not ready. */
  lastStatus: number;
  reason?: 'timeout' | 'exited';
}

const PROBE_TIMEOUT_MS = 1_000;

/**
 * GET `url`'s status on a connection of its own, closed after the answer; 0 without an answer. A
 * probe never leaves an idle keep-alive connection behind: an instance that drains by waiting for
 * its connections to close would wait for it.
 */
export function fetchStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * Polls `url` (or `probe`, for an instance on a unix socket) until it answers 200, for at most
 * `boundMs`; stops early when `isAlive` says the instance has exited.
 */
export async function waitUntilReady(
  url: string,
  options: {
    boundMs: number;
    pollMs: number;
    isAlive?: () => Promise<boolean>;
    probe?: () => Promise<number>;
  },
): Promise<ReadyResult> {
  const started = Date.now();
  let lastStatus = 0;
  for (;;) {
    lastStatus = await (options.probe ?? (() => fetchStatus(url)))();
    if (lastStatus === 200) return { ready: true, ms: Date.now() - started, lastStatus };
    if (options.isAlive && !(await options.isAlive()))
      return { ready: false, ms: Date.now() - started, lastStatus, reason: 'exited' };
    if (Date.now() - started >= options.boundMs)
      return { ready: false, ms: Date.now() - started, lastStatus, reason: 'timeout' };
    await sleep(options.pollMs);
  }
}
