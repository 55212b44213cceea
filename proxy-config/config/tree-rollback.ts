import { toAdoptionRecord } from '../core/adopt/adoption-record.js';
import { planRecordRollback } from '../core/adopt/plan-record-rollback.js';
import { ProxyopsError } from '../core/errors.js';
import { withLoadCommand } from '../shell/nginx/drift-load-command.js';
import { readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readTreeHistory, readTreeVersion } from '../shell/nginx/tree-history.js';
import { applyTreeChange, type PlannedTreeChange, type TreeApplyReport } from './apply-tree-change.js';
import type { ChangeSpec } from './serving-check.js';

/**
 * `config rollback` for a hand-written tree: the last recorded change undone, as a change of its
 * own (tested on a copy, atomic, recorded), and the adoption record as it was before it. A second
 * rollback undoes the first.
 */
export function rollbackTree(
  state: string,
  pidFile: string,
  spec: ChangeSpec,
  say?: (line: string) => void,
): Promise<TreeApplyReport> {
  return applyTreeChange({
    kind: 'rollback',
    state,
    spec,
    ...(say ? { say } : {}),
    plan: async () => ({ pidFile, ...(await planTreeRollback(state, say, pidFile)) }),
  });
}

/**
 * The change that undoes the last recorded one (and the adoption record as it was before it). An
 * adoption, its undo (or a rollback of one) is rolled back through its records, on the tree as it is now, so edits made
 * since outside the blocks stay; any other change puts its files back whole. `pidFile` names the
 * master a drift refusal tells how to load the lines put back.
 */
export async function planTreeRollback(
  state: string,
  say: ((line: string) => void) | undefined,
  pidFile: string,
): Promise<PlannedTreeChange> {
  const last = (await readTreeHistory(state)).at(-1);
  if (!last)
    throw new ProxyopsError(
      'NOTHING_TO_ROLL_BACK',
      `${state} records no change to a hand-written tree: nothing to roll back`,
    );
  const { record, texts } = await readTreeVersion(state, last.version);
  say?.(`rolling back ${last.version} (${record.kind}, ${record.appliedAt})`);
  if (record.adoption) {
    const source = `${last.version}/record.json under ${state}`;
    const tree = await readNginxTree(record.conf);
    try {
      const change = planRecordRollback(
        tree,
        toAdoptionRecord(record.adoption.after, source),
        toAdoptionRecord(record.adoption.before, source),
      );
      return { change, adoption: { before: record.adoption.after, after: record.adoption.before } };
    } catch (error) {
      throw await withLoadCommand(error, pidFile);
    }
  }
  const files = texts.map(({ path, before, after }) => ({
    path,
    before: after ?? '',
    after: before ?? '',
    ...(before === undefined ? { remove: true } : {}),
  }));
  return { change: { conf: record.conf, files } };
}
