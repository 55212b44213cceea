import { dirname, resolve } from 'node:path';
import type { TreeSource } from '../core/apply/apply-steps-protocol.js';
import { planUndo } from '../core/adopt/managed-lines.js';
import { planAdoption } from '../core/adopt/plan-adoption.js';
import { planTreeFiles } from '../core/adopt/plan-tree-files.js';
import type { AdoptionRecord } from '../core/adopt/tree.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { readAdoptionFile } from '../shell/nginx/adoption-file.js';
import { readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readHostTreeView } from '../shell/nginx/read-tree-dir.js';
import type { TreeChangeKind } from '../shell/nginx/tree-history.js';
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
 * the state dir's locks). The hosts of a change may hold different trees outside what it touches,
 * so each plans its own.
 */
export async function planTreeSource(
  state: string,
  spec: ProxySpec,
  source: TreeSource,
): Promise<PlannedTreeChange & { kind: TreeChangeKind }> {
  const conf = confOf(spec);
  const kind = KIND[source.kind];
  if (source.kind === 'files') {
    const confDir = dirname(conf);
    return { kind, change: planTreeFiles(conf, confDir, source, await readHostTreeView(confDir, source)) };
  }
  if (source.kind === 'rollback') return { kind, ...(await planTreeRollback(state)) };
  const tree = await readNginxTree(conf);
  const record = (await readAdoptionFile(state)) as AdoptionRecord | undefined;
  if (source.kind === 'undo-adopt') {
    if (!record) return { kind, change: { conf: tree.conf, files: [] } };
    return { kind, change: planUndo(tree, record), adoption: { before: record, after: undefined } };
  }
  const planned = planAdoption(tree, spec.upstreams, record);
  if (planned.change.files.length === 0) return { kind, change: planned.change };
  return { kind, change: planned.change, adoption: { before: record, after: planned.record } };
}
