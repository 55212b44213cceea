import { describeDrift, findServerDrift, toServerAddress } from '../core/apply/server-drift.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { readStackState, writeStackState, type InstanceRecord } from '../shell/stack-state.js';

/**
 * How `config apply` treats a spec whose upstream servers differ from the instances that `deploy`
 * or `up` recorded in TARGET/instances.json: `check` refuses, `state` keeps the recorded instances,
 * `spec` puts the spec's servers in and records them.
 */
export type ServersFrom = 'check' | 'state' | 'spec';

/** The spec to render, and what to record once it is live. */
export interface ReconciledServers {
  spec: ProxySpec;
  record(): Promise<void>;
}

/** Compares the spec's servers with the recorded ones and resolves a difference as `mode` says. */
export async function reconcileServers(
  spec: ProxySpec,
  target: string,
  mode: ServersFrom,
  say: (line: string) => void,
): Promise<ReconciledServers> {
  const unchanged = { spec, record: () => Promise.resolve() };
  const state = await readStackState(target);
  if (!state) return unchanged;
  const serving: Record<string, InstanceRecord[]> = {};
  for (const [name, records] of Object.entries(state.upstreams))
    serving[name] = records.filter((r) => r.inUpstream);
  const specPools = Object.fromEntries(Object.entries(spec.upstreams).map(([name, p]) => [name, p.servers]));
  const drift = findServerDrift(specPools, serving);
  if (drift.length === 0) return unchanged;

  if (mode === 'check')
    throw new ProxyopsError(
      'SERVERS_DIFFER_FROM_STATE',
      `${describeDrift(drift)} (recorded in ${target}/instances.json by the last deploy); applying the spec ` +
        'would route to instances that may be gone. Pass --servers-from state to keep the serving instances, ' +
        'or --servers-from spec to put the spec’s servers in',
    );
  if (mode === 'state') {
    const upstreams = { ...spec.upstreams };
    for (const { upstream } of drift) {
      const pool = upstreams[upstream]!;
      // Per-server settings (max_fails, weight, ...) come from the first server written in the spec.
      // A recorded instance is no pair: the first server's alternate is not copied onto it.
      const { alternate: _alternate, ...first } = pool.servers[0]!;
      upstreams[upstream] = {
        ...pool,
        servers: serving[upstream]!.map((r) => ({ ...first, host: r.host, port: r.port })),
      };
    }
    say(`servers from ${target}/instances.json: ${describeDrift(drift)}`);
    return { spec: { ...spec, upstreams }, record: () => Promise.resolve() };
  }
  return {
    spec,
    async record() {
      for (const { upstream } of drift) {
        const records = new Map((state.upstreams[upstream] ?? []).map((r) => [toServerAddress(r), r]));
        const servers = spec.upstreams[upstream]!.servers.map((s) => ({
          ...records.get(toServerAddress(s)),
          host: s.host,
          port: s.port,
          inUpstream: true,
        }));
        const wanted = new Set(servers.map(toServerAddress));
        // Instances proxyops started stay recorded (out of the upstream), so `down` still stops them.
        const left = [...records.values()]
          .filter((r) => r.pid !== undefined && !wanted.has(toServerAddress(r)))
          .map((r) => ({ ...r, inUpstream: false }));
        for (const r of left)
          say(
            `${toServerAddress(r)} (pid ${r.pid}) left upstream ${upstream} but still runs; stop it with kill -${(spec.upstreams[upstream]!.deploy?.stopSignal ?? 'SIGQUIT').replace(/^SIG/, '')} ${r.pid}`,
          );
        state.upstreams[upstream] = [...servers, ...left];
      }
      await writeStackState(target, state);
    },
  };
}
