import { join } from 'node:path';
import { toAdoptionRecord } from '../core/adopt/adoption-record.js';
import { specServerKey } from '../core/adopt/locate-upstream.js';
import {
  blockServers,
  pairKey,
  servingLineRefusal,
  type UpstreamChange,
} from '../core/adopt/serving-lines.js';
import type { NginxTree } from '../core/adopt/tree.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { ADOPTION_FILE, readAdoptionFile } from '../shell/nginx/adoption-file.js';
import { readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { isSameProcess } from '../shell/process/process-identity.js';
import { isAccepting } from '../shell/process/tcp-accepting.js';
import { readStackState, type InstanceRecord } from '../shell/stack-state.js';
import type { TreeFileSet } from './tree-change-steps.js';

/** The spec a change was asked with: its path for the commands a refusal names, and its pairs. */
export interface ChangeSpec {
  path: string;
  upstreams: ProxySpec['upstreams'];
}

/**
 * Refuses (ADOPT_REFUSED, exit 2) a planned change that drops the server line of an address where
 * an instance of the state dir's upstreams runs: one recorded in STATE/instances.json whose process
 * is still the one started, or anything accepting connections at an address the live block lists
 * (the caller checks, before writing, that nginx loaded the tree as it is on disk). The upstreams
 * looked at are those the state records instances or an adoption of; nothing is written here.
 */
export async function refuseDroppingServing(
  state: string,
  change: TreeFileSet,
  spec: ChangeSpec,
): Promise<void> {
  if (change.files.length === 0) return;
  const instances = await readStackState(state);
  const adoption = toAdoptionRecord(await readAdoptionFile(state), join(state, ADOPTION_FILE));
  const names = new Set([
    ...Object.keys(instances?.upstreams ?? {}),
    ...Object.keys(adoption?.upstreams ?? {}),
  ]);
  if (names.size === 0) return;
  const { conf, files } = await readNginxTree(change.conf);
  const after = new Map(files);
  for (const file of change.files) {
    if (file.remove) after.delete(file.path);
    else after.set(file.path, file.after);
  }
  const changes: UpstreamChange[] = [];
  for (const upstream of names) {
    const before = blockServers({ conf, files }, upstream);
    if (!before) continue;
    const kept = (blockServers({ conf, files: after } satisfies NginxTree, upstream) ?? []).map((s) => s.key);
    if (before.every((s) => kept.includes(s.key))) continue;
    const recorded = await runningRecorded(instances?.upstreams[upstream] ?? []);
    const running: string[] = [];
    for (const { key } of before) if (recorded.has(key) || (await accepting(key))) running.push(key);
    changes.push({ upstream, before, after: kept, running, specPairs: pairsOf(spec.upstreams[upstream]) });
  }
  const refusal = servingLineRefusal(changes, spec.path);
  if (refusal)
    throw new ProxyopsError('ADOPT_REFUSED', refusal.text, {
      details: { rule: refusal.rule, cut: refusal.cut },
    });
}

/** The keys of the recorded instances in the upstream whose process is still the one recorded. */
async function runningRecorded(records: readonly InstanceRecord[]): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const r of records)
    if (r.inUpstream && r.pid !== undefined && (await isSameProcess(r.pid, r.identity)))
      keys.add(
        specServerKey({ host: r.host, port: r.port, ...(r.slot === undefined ? {} : { socket: r.slot }) }),
      );
  return keys;
}

/** The spec's blue/green pairs of one upstream (none when the spec does not name it). */
function pairsOf(pool: ProxySpec['upstreams'][string] | undefined): Set<string> {
  return new Set(
    (pool?.servers ?? []).flatMap((s) =>
      s.alternate ? [pairKey(`${s.host}:${s.port}`, `${s.alternate.host}:${s.alternate.port}`)] : [],
    ),
  );
}

/**
 * Whether something accepts TCP connections at a server key (`HOST PORT`). A unix socket line is
 * judged by the state's record alone (the alternate path pairs TCP addresses only).
 */
function accepting(key: string): Promise<boolean> {
  if (key.startsWith('unix:')) return Promise.resolve(false);
  const [host, port] = key.split(' ');
  return isAccepting(host!, Number(port));
}
