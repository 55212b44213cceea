import { lastUpstream } from './access-record.js';
import type { Evidence } from './evidence.js';

/** `http://127.0.0.1:9101/x` or `127.0.0.1:9101` → `127.0.0.1:9101`; null for unix sockets and names without a port. */
export function toHostPort(text: string): string | null {
  const bare = text.replace(/^[a-z]+:\/\//, '').split('/')[0] ?? '';
  return /^(?:\[[0-9a-f:.]+\]|[^:/\s]+):\d+$/i.test(bare) ? bare : null;
}

/** Every upstream `host:port` the evidence names: access log, error log and config. */
export function knownUpstreams(evidence: Evidence): string[] {
  const found = new Set<string>();
  for (const record of evidence.access?.records ?? []) {
    const upstream = lastUpstream(record);
    const hostPort = upstream ? toHostPort(upstream) : null;
    if (hostPort) found.add(hostPort);
  }
  for (const line of evidence.errors?.lines ?? []) {
    const hostPort = line.upstream ? toHostPort(line.upstream) : null;
    if (hostPort) found.add(hostPort);
  }
  for (const location of evidence.config?.locations ?? []) {
    for (const server of location.upstreamServers) {
      const hostPort = toHostPort(server);
      if (hostPort) found.add(hostPort);
    }
  }
  return [...found];
}
