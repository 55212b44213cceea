/** A host and port, as in a spec's upstream servers and in the recorded instances. */
export interface ServerAddress {
  host: string;
  port: number;
  /** The other address of a blue/green pair (the spec's `alternate`): either one serving is the server serving. */
  alternate?: { host: string; port: number } | undefined;
}

/**
 * The address a recorded instance stands for among `servers`: the server's own when the instance
 * runs on its alternate (a deploy moved it there), else its own address.
 */
function asListed(servers: readonly ServerAddress[], instance: ServerAddress): string {
  const address = toServerAddress(instance);
  const pair = servers.find((s) => s.alternate && toServerAddress(s.alternate) === address);
  return toServerAddress(pair ?? instance);
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
    const kept = recorded.map((r) => asListed(servers, r)).sort();
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

/** An instance as `deploy` and `up` record it (TARGET/instances.json). */
export interface RecordedInstance extends ServerAddress {
  inUpstream: boolean;
  pid?: number;
}

/** Servers a config version routes to that no recorded instance answers on, per upstream. */
export interface GoneServers {
  upstream: string;
  gone: string[];
  serving: string[];
}

/**
 * Upstreams where `versionPools` (a stored version's servers) routes to an address that is neither
 * serving per the record nor a recorded instance still running (`running` pids), as one that
 * `config apply --servers-from spec` took out. Routing to fewer of the serving instances is no
 * hazard; an upstream with no record at all (never deployed) is not checked.
 */
export function findGoneServers(
  versionPools: Record<string, readonly ServerAddress[]>,
  recordedPools: Record<string, readonly RecordedInstance[]>,
  running: ReadonlySet<number>,
): GoneServers[] {
  const found: GoneServers[] = [];
  for (const [upstream, servers] of Object.entries(versionPools)) {
    const recorded = recordedPools[upstream];
    if (!recorded || recorded.length === 0) continue;
    const answering = new Set(
      recorded
        .filter((r) => r.inUpstream || (r.pid !== undefined && running.has(r.pid)))
        .map((r) => asListed(servers, r)),
    );
    const gone = servers
      .map(toServerAddress)
      .filter((s) => !answering.has(s))
      .sort();
    const serving = recorded
      .filter((r) => r.inUpstream)
      .map(toServerAddress)
      .sort();
    if (gone.length > 0) found.push({ upstream, gone, serving });
  }
  return found;
}

/** One clause per upstream, for the refusal of a rollback and the note of a forced one. */
export function describeGone(gone: readonly GoneServers[]): string {
  return gone
    .map((g) => `upstream ${g.upstream} to ${g.gone.join(', ')} (serving: ${g.serving.join(', ') || 'none'})`)
    .join('; ');
}

/**
 * The record once nginx routes as `versionPools` says: each recorded instance is in its upstream
 * exactly when the version lists it, and a listed address with no record is added. Pools the
 * version does not name are kept as they are.
 */
export function recordAfterSwitch<T extends RecordedInstance>(
  recordedPools: Record<string, readonly T[]>,
  versionPools: Record<string, readonly ServerAddress[]>,
): Record<string, Array<T | RecordedInstance>> {
  const pools: Record<string, Array<T | RecordedInstance>> = {};
  for (const [upstream, records] of Object.entries(recordedPools)) {
    const servers = versionPools[upstream];
    if (!servers) {
      pools[upstream] = [...records];
      continue;
    }
    const listed = new Set(servers.map(toServerAddress));
    // An instance on the alternate of a listed server is that server (nginx lists the pair whole).
    const known = new Set(records.map((r) => asListed(servers, r)));
    pools[upstream] = [
      ...records.map((r) => ({ ...r, inUpstream: listed.has(asListed(servers, r)) })),
      ...servers
        .filter((s) => !known.has(toServerAddress(s)))
        .map((s) => ({ host: s.host, port: s.port, inUpstream: true })),
    ];
  }
  return pools;
}
