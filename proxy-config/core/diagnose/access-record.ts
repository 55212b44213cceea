import type { NginxDirective } from '../nginx-config/types.js';

/**
 * The access-log fields diagnosis reads (conventions §4.8). Upstream lists hold one value per
 * attempt, the last being the final one; `null` stands for nginx's `-`.
 */
export interface AccessRecord {
  time: Date | null;
  status: number;
  path: string;
  requestTime: number | null;
  upstreamStatus: (number | null)[];
  upstreamConnectTime: (number | null)[];
  upstreamHeaderTime: (number | null)[];
  upstreamAddr: string[];
  /**
   * The `server` blocks whose access_log writes the file it came from; absent when nothing says (no
   * config, or no access_log line names that file), so any server may have answered it.
   */
  servers?: readonly NginxDirective[];
  /** `$server_port`, when the format logs it: the port of the server that answered. */
  serverPort?: string;
}

/**
 * True when nginx produced the status itself: no upstream attempt at all, or no header from the last
 * one. A header time alone says an upstream answered, with or without its address logged.
 */
export function isProxyGenerated(record: AccessRecord): boolean {
  return (record.upstreamHeaderTime.at(-1) ?? null) === null;
}

/** The address of the final upstream attempt, or null when nginx answered by itself. */
export function lastUpstream(record: AccessRecord): string | null {
  const addr = record.upstreamAddr.at(-1);
  return addr && addr !== '-' ? addr : null;
}

/** True when the final upstream attempt got a connection (its connect time was logged). */
export function hasConnected(record: AccessRecord): boolean {
  return (record.upstreamConnectTime.at(-1) ?? null) !== null;
}
