import { readFile } from 'node:fs/promises';
import {
  countTimeWaitByEndpoint,
  parseProcNetTcp,
  type TcpSocket,
} from '../../core/diagnose/parse-proc-net-tcp.js';

/** Every TCP socket of /proc/net/tcp and /proc/net/tcp6 (a missing table counts as empty). */
export async function readTcpSockets(): Promise<TcpSocket[]> {
  const tables = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')),
  );
  return tables.flatMap(parseProcNetTcp);
}

/** TIME_WAIT sockets per endpoint. */
export async function readTimeWaitByEndpoint(): Promise<Record<string, number>> {
  return countTimeWaitByEndpoint(await readTcpSockets());
}
