import { dirname, resolve } from 'node:path';
import type { TreeSource } from '../core/apply/apply-steps-protocol.js';
import { planTreeFiles } from '../core/adopt/plan-tree-files.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { pidFileOfTree, readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readHostTreeView } from '../shell/nginx/read-tree-dir.js';
import type { TreeChangeKind } from '../shell/nginx/tree-history.js';
import { planAdoptionChange } from './adopt-nginx.js';
import type { PlannedTreeChange } from './apply-tree-change.js';
import { planTreeRollback } from './tree-rollback.js';

/** The main file of a spec that names a hand-written config; BAD_OPTION for a rendered spec. */
export function confOf(spec: ProxySpec): string {
  if (!spec.nginx)
    throw new ProxyopsError(
      'BAD_OPTION',
      'the spec renders its config (no nginx.conf): a hand-written tree needs a spec with nginx: { conf }',
    );
  return resolve(spec.nginx.conf);
}

/** How each kind of request is recorded in the history. */
const KIND: Record<TreeSource['kind'], TreeChangeKind> = {
  files: 'tree',
  adopt: 'adopt',
  'undo-adopt': 'undo-adopt',
  rollback: 'rollback',
};

/**
 * Plans, on this host and from its own files, the change a tree request asks for (the caller holds
 * the state dir's locks), and finds the pid file of the nginx that runs the tree. The hosts of a
 * change may hold different trees outside what it touches, so each plans its own.
 */
export async function planTreeSource(
  state: string,
  spec: ProxySpec,
  source: TreeSource,
): Promise<PlannedTreeChange & { kind: TreeChangeKind; pidFile: string }> {
  const conf = confOf(spec);
  const kind = KIND[source.kind];
  const nginx = spec.nginx!;
  if (source.kind === 'adopt' || source.kind === 'undo-adopt')
    return { kind, ...(await planAdoptionChange({ spec, nginx, state }, source.kind === 'undo-adopt')) };
  const pidFile = pidFileOfTree(nginx, (await readNginxTree(conf)).config);
  if (source.kind === 'rollback')
    return { kind, pidFile, ...(await planTreeRollback(state, undefined, pidFile)) };
  const confDir = dirname(conf);
  const change = planTreeFiles(conf, confDir, source, await readHostTreeView(confDir, source));
  return { kind, pidFile, change };
}
