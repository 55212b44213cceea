import { readFile } from 'node:fs/promises';
import { countTimeWaitByEndpoint, parseProcNetTcp } from '../core/diagnose/parse-proc-net-tcp.js';

/** TIME_WAIT sockets per endpoint from /proc/net/tcp and /proc/net/tcp6 (a missing table counts as empty). */
export async function readTimeWaitByEndpoint(): Promise<Record<string, number>> {
  const tables = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')),
  );
  return countTimeWaitByEndpoint(tables.flatMap(parseProcNetTcp));
}
