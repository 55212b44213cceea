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

/** GET `url`'s status; 0 without an answer. */
export async function fetchStatus(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return 0;
  }
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
