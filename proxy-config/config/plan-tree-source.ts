import { dirname, resolve } from 'node:path';
import type { TreeSource } from '../core/apply/apply-steps-protocol.js';
import { planTreeFiles } from '../core/adopt/plan-tree-files.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { readHostTreeView } from '../shell/nginx/read-tree-dir.js';
import type { TreeChangeKind } from '../shell/nginx/tree-history.js';
import type { TreeFileSet } from './tree-change-steps.js';

/** A change to this host's tree, planned from its own files, and what its history entry says. */
export interface PlannedTreeChange {
  change: TreeFileSet;
  kind: TreeChangeKind;
  summary: string;
}

/** The main file of a spec that names a hand-written config; BAD_OPTION for a rendered spec. */
export function confOf(spec: ProxySpec): string {
  if (!spec.nginx)
    throw new ProxyopsError(
      'BAD_OPTION',
      'the spec renders its config (no nginx.conf): a hand-written tree needs a spec with nginx: { conf }',
    );
  return resolve(spec.nginx.conf);
}

/**
 * Plans, on this host and from its own files, the change a tree request asks for. The hosts of a
 * change may hold different trees outside what it touches, so each plans its own.
 */
export async function planTreeSource(
  _state: string,
  spec: ProxySpec,
  source: TreeSource,
): Promise<PlannedTreeChange> {
  const conf = confOf(spec);
  if (source.kind === 'files') {
    const confDir = dirname(conf);
    const change = planTreeFiles(conf, confDir, source, await readHostTreeView(confDir, source));
    const count = change.files.length;
    return { change, kind: 'tree', summary: `tree shipped: ${count} file${count === 1 ? '' : 's'} changed` };
  }
  throw new ProxyopsError('BAD_OPTION', `${source.kind} over proxies is not built yet`);
}
