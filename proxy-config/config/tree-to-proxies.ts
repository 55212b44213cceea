import { basename } from 'node:path';
import type { TreeSource } from '../core/apply/apply-steps-protocol.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { readTreeDir } from '../shell/nginx/read-tree-dir.js';
import type { TreeVersionRecord } from '../shell/nginx/tree-history.js';
import {
  applyToProxies,
  changeEveryHost,
  diffEveryHost,
  diffProxies,
  readProxiesHistory,
  readProxiesSpec,
  withSessions,
  type ProxiesApplyReport,
} from './apply-to-proxies.js';
import type { HistoryEntry } from './config-history.js';
import { confOf } from './plan-tree-source.js';

/**
 * What a change to the hand-written trees of a spec's hosts is asked to do: ship `tree` (make every
 * host's tree hold DIR's files), undo the adoption, roll back the last change, or else adopt.
 */
export interface TreeAsk {
  tree?: string;
  undoAdopt?: boolean;
  rollback?: boolean;
}

/** The request's source: a local tree is read here, once, and travels to every host. */
async function sourceOf(spec: ProxySpec, ask: TreeAsk): Promise<TreeSource> {
  if (ask.tree !== undefined)
    return { kind: 'files', ...(await readTreeDir(ask.tree, basename(confOf(spec)))) };
  if (ask.undoAdopt) return { kind: 'undo-adopt' };
  return { kind: ask.rollback ? 'rollback' : 'adopt' };
}

/** How the line of a host that already holds the change names it. */
const NOUN = { files: 'tree', adopt: 'adoption', 'undo-adopt': 'state', rollback: 'state' } as const;

/**
 * Changes the hand-written tree of every nginx host of a spec with `nginx.conf` as one change: each
 * host plans its own TreeChange from its own files and tests it (nginx -t on a staged copy); only
 * when every host passed, each in turn writes it in place and reloads, all under one version name;
 * when one fails, the hosts already changed put every byte back.
 */
export async function applyTreeToProxies(
  spec: ProxySpec,
  ask: TreeAsk,
  say: (line: string) => void,
): Promise<ProxiesApplyReport> {
  confOf(spec); // a rendered spec is refused before any host is reached
  const source = await sourceOf(spec, ask);
  const request = {
    step: 'prepare-tree',
    spec,
    source,
    appliedAt: new Date().toISOString(),
  } as const;
  return withSessions(spec.proxies, (sessions) => changeEveryHost(sessions, request, NOUN[source.kind], say));
}

/** What that change would touch on each host: a unified diff of the files, headed by the host. */
export async function diffTreeOnProxies(
  spec: ProxySpec,
  ask: TreeAsk,
): Promise<Array<{ host: string; live?: string; diff: string }>> {
  confOf(spec); // a rendered spec is refused before any host is reached
  const source = await sourceOf(spec, ask);
  return diffEveryHost(spec.proxies, { step: 'diff-tree', spec, source });
}

/** One kept version of a hand-written tree's changes, as `config history` lists it. */
export interface TreeHistoryEntry {
  version: string;
  record: TreeVersionRecord;
}

/** Each host's kept versions of its tree's changes, oldest first. */
export async function readTreeHistoryOnProxies(
  spec: ProxySpec,
): Promise<Array<{ host: string; tree: TreeHistoryEntry[] }>> {
  return withSessions(
    spec.proxies,
    (sessions) =>
      Promise.all(
        sessions.map(async (session) => {
          const answer = await session.request({ step: 'history', tree: true });
          if (answer.step !== 'tree-history')
            throw new ProxyopsError(
              'REMOTE_STEP_FAILED',
              `${session.host.name}: answered ${answer.step} to history`,
            );
          // Both ends run the same proxyops (checked first): the record is tree-history.ts's.
          return { host: session.host.name, tree: answer.versions as TreeHistoryEntry[] };
        }),
      ),
    true,
  );
}

/**
 * `config apply --spec S` without --target: with `nginx.conf`, the adoption (or what `ask` names) on
 * every host; for a rendered spec, the render (a tree option is then refused).
 */
export async function applyOnHosts(
  specPath: string,
  ask: TreeAsk,
  say: (line: string) => void,
): Promise<ProxiesApplyReport> {
  const spec = await readProxiesSpec(specPath);
  if (spec.nginx || ask.tree !== undefined || ask.undoAdopt || ask.rollback)
    return applyTreeToProxies(spec, ask, say);
  return applyToProxies(specPath, say);
}

/** `config diff --spec S` without --target, as `applyOnHosts` would change each host. */
export async function diffOnHosts(
  specPath: string,
  ask: TreeAsk,
): Promise<Array<{ host: string; live?: string; diff: string }>> {
  const spec = await readProxiesSpec(specPath);
  if (spec.nginx || ask.tree !== undefined || ask.undoAdopt) return diffTreeOnProxies(spec, ask);
  return diffProxies(specPath);
}

/** `config history --spec S`: each host's versions, of its tree (nginx.conf) or of the render. */
export async function historyOnHosts(
  specPath: string,
): Promise<Array<{ host: string; tree: TreeHistoryEntry[] } | { host: string; versions: HistoryEntry[] }>> {
  const spec = await readProxiesSpec(specPath);
  return spec.nginx ? readTreeHistoryOnProxies(spec) : readProxiesHistory(specPath);
}
