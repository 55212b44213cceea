import { ProxyopsError } from '../core/errors.js';
import { readTreeHistory, readTreeVersion } from '../shell/nginx/tree-history.js';
import { applyTreeChange, type PlannedTreeChange, type TreeApplyReport } from './apply-tree-change.js';

/**
 * `config rollback` for a hand-written tree: the last recorded change undone, as a change of its
 * own (tested on a copy, atomic, recorded), and the adoption record as it was before it. A second
 * rollback undoes the first.
 */
export function rollbackTree(
  state: string,
  pidFile: string,
  say?: (line: string) => void,
): Promise<TreeApplyReport> {
  return applyTreeChange({
    kind: 'rollback',
    state,
    pidFile,
    ...(say ? { say } : {}),
    plan: () => planTreeRollback(state, say),
  });
}

/** The change that undoes the last recorded one (and the adoption record as it was before it). */
export async function planTreeRollback(
  state: string,
  say?: (line: string) => void,
): Promise<PlannedTreeChange> {
  const last = (await readTreeHistory(state)).at(-1);
  if (!last)
    throw new ProxyopsError(
      'NOTHING_TO_ROLL_BACK',
      `${state} records no change to a hand-written tree: nothing to roll back`,
    );
  const { record, texts } = await readTreeVersion(state, last.version);
  say?.(`rolling back ${last.version} (${record.kind}, ${record.appliedAt})`);
  const files = texts.map(({ path, before, after }) => ({
    path,
    before: after ?? '',
    after: before ?? '',
    ...(before === undefined ? { remove: true } : {}),
  }));
  const adoption = record.adoption
    ? { adoption: { before: record.adoption.after, after: record.adoption.before } }
    : {};
  return { change: { conf: record.conf, files }, ...adoption };
}
