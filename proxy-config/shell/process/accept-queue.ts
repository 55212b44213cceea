import { setTimeout as sleep } from 'node:timers/promises';
import { acceptQueueOf } from '../../core/host/listen-queue.js';
import type { Host } from '../host/host.js';

/** How waiting for an empty accept queue ended. */
export type QueueWait =
  | { empty: true; ms: number }
  | { empty: false; queued: number; ms: number }
  /** `ss` could not say (not installed there, or no such listener). */
  | { empty: false; unknown: string; ms: number };

/**
 * Waits, on the instance's own host, until nothing waits in the accept queue of its listener at
 * `host:port`: once nginx's new connections to it are refused, that is when it can close the
 * listener without a connection being reset. At most `boundMs`.
 */
export async function waitAcceptQueueEmpty(
  on: Host,
  address: { host: string; port: number },
  options: { boundMs: number; pollMs: number },
): Promise<QueueWait> {
  const started = Date.now();
  for (;;) {
    const ran = await on.run(['ss', '-Hltn', `sport = :${address.port}`]).catch((error: Error) => error);
    const ms = Date.now() - started;
    if (ran instanceof Error) return { empty: false, unknown: ran.message, ms };
    if (ran.exitCode !== 0)
      return { empty: false, unknown: `ss exited ${ran.exitCode}: ${ran.stderr.trim()}`, ms };
    const queued = acceptQueueOf(ran.stdout, address.host, address.port);
    if (queued === undefined)
      return { empty: false, unknown: `ss lists no listener at ${address.host}:${address.port}`, ms };
    if (queued === 0) return { empty: true, ms };
    if (ms >= options.boundMs) return { empty: false, queued, ms };
    await sleep(options.pollMs);
  }
}
