/** A host and port, as in a spec's upstream servers and in the recorded instances. */
export interface ServerAddress {
  host: string;
  port: number;
}

/** An upstream whose servers in the spec are not the instances a deploy or `up` recorded as serving. */
export interface ServerDrift {
  upstream: string;
  spec: string[];
  recorded: string[];
}

/** One spelling of an address, IPv6 in brackets whether or not it was written with them. */
export function toServerAddress(server: ServerAddress): string {
  const host = server.host.replace(/^\[(.*)\]$/, '$1');
  return host.includes(':') ? `[${host}]:${server.port}` : `${host}:${server.port}`;
}

/**
 * Upstreams where the spec and the record disagree. An upstream with no record (never deployed)
 * is no drift: the spec is the only truth there is.
 */
export function findServerDrift(
  specPools: Record<string, readonly ServerAddress[]>,
  recordedPools: Record<string, readonly ServerAddress[]>,
): ServerDrift[] {
  const drift: ServerDrift[] = [];
  for (const [upstream, servers] of Object.entries(specPools)) {
    const recorded = recordedPools[upstream];
    if (!recorded || recorded.length === 0) continue;
    const spec = servers.map(toServerAddress).sort();
    const kept = recorded.map(toServerAddress).sort();
    if (spec.join(' ') !== kept.join(' ')) drift.push({ upstream, spec, recorded: kept });
  }
  return drift;
}

/** One line per drifted upstream, for an error or a notice. */
export function describeDrift(drift: readonly ServerDrift[]): string {
  return drift
    .map(
      (d) =>
        `upstream ${d.upstream}: the spec lists ${d.spec.join(', ')}; serving now: ${d.recorded.join(', ')}`,
    )
    .join('; ');
}

/** Servers a config version routes to that the record does not list as serving, per upstream. */
export interface GoneServers {
  upstream: string;
  gone: string[];
  serving: string[];
}

/**
 * Upstreams where `versionPools` (a stored version's servers) routes to a server the record does not
 * list as serving. Routing to fewer of the serving instances is no hazard; an upstream with no record
 * (never deployed) is not checked, as in `findServerDrift`.
 */
export function findGoneServers(
  versionPools: Record<string, readonly string[]>,
  recordedPools: Record<string, readonly ServerAddress[]>,
): GoneServers[] {
  const found: GoneServers[] = [];
  for (const [upstream, servers] of Object.entries(versionPools)) {
    const recorded = recordedPools[upstream];
    if (!recorded || recorded.length === 0) continue;
    const serving = recorded.map(toServerAddress).sort();
    const gone = servers.filter((s) => !serving.includes(s)).sort();
    if (gone.length > 0) found.push({ upstream, gone, serving });
  }
  return found;
}
