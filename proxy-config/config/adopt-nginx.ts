import { join, resolve } from 'node:path';
import { toAdoptionRecord } from '../core/adopt/adoption-record.js';
import { driftError, findDrift, planUndo } from '../core/adopt/managed-lines.js';
import { planAdoption } from '../core/adopt/plan-adoption.js';
import type { TreeChange } from '../core/adopt/tree.js';
import { unifiedDiff } from '../core/apply/unified-diff.js';
import type { AdoptedNginxSpec, ProxySpec } from '../core/spec/proxy-spec.js';
import { ADOPTION_FILE, readAdoptionFile } from '../shell/nginx/adoption-file.js';
import { pidFileOfTree, readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { applyTreeChange, type PlannedTreeChange, type TreeApplyReport } from './apply-tree-change.js';
import { rollbackTree } from './tree-rollback.js';

/**
 * `config apply|diff|rollback --spec S` where S names a hand-written config (`nginx.conf`): the
 * adoption of its upstream blocks, their undo, and the last change rolled back, each one change
 * made by the one tree applier. `--target` overrides the spec's state directory.
 */

/** Where an adopted spec's nginx and state are. */
export interface AdoptedSpec {
  spec: ProxySpec;
  nginx: AdoptedNginxSpec;
  state: string;
}

/** The spec, when it names a hand-written config; undefined for a spec proxyops renders. */
export async function readAdoptedSpec(specPath: string, target?: string): Promise<AdoptedSpec | undefined> {
  const spec = await readSpecFile(specPath);
  if (!spec.nginx) return undefined;
  return { spec, nginx: spec.nginx, state: resolve(target ?? spec.nginx.state) };
}

/** What an adoption or its undo would change, planned on the tree as it is now. */
export async function planAdoptionChange(
  adopted: AdoptedSpec,
  undo: boolean,
): Promise<PlannedTreeChange & { pidFile: string }> {
  const tree = await readNginxTree(adopted.nginx.conf);
  const pidFile = pidFileOfTree(adopted.nginx, tree.config);
  const record = toAdoptionRecord(await readAdoptionFile(adopted.state), join(adopted.state, ADOPTION_FILE));
  if (undo) {
    if (!record) return { change: { conf: tree.conf, files: [] }, pidFile };
    // A hand edit inside the managed lines would be lost: refused, as adoption refuses it.
    const drift = findDrift(tree, record);
    if (drift.length > 0) throw driftError(drift);
    return { change: planUndo(tree, record), pidFile, adoption: { before: record, after: undefined } };
  }
  const planned = planAdoption(tree, adopted.spec.upstreams, record);
  if (planned.change.files.length === 0) return { change: planned.change, pidFile };
  return { change: planned.change, pidFile, adoption: { before: record, after: planned.record } };
}

/** `config apply --spec S [--undo-adopt]`: adopt the spec's upstreams in place, or put them back. */
export async function adoptNginx(
  adopted: AdoptedSpec,
  options: { undo?: boolean; say?: (line: string) => void },
): Promise<TreeApplyReport> {
  // The pid file is read from the tree, which the plan reads again under the locks.
  const { pidFile } = await planAdoptionChange(adopted, options.undo === true);
  return applyTreeChange({
    kind: options.undo ? 'undo-adopt' : 'adopt',
    state: adopted.state,
    pidFile,
    ...(options.say ? { say: options.say } : {}),
    plan: () => planAdoptionChange(adopted, options.undo === true),
  });
}

/** `config diff --spec S [--undo-adopt]`: the unified diff of every file the apply would change ('' when none). */
export async function diffAdoption(adopted: AdoptedSpec, undo = false): Promise<string> {
  const { change } = await planAdoptionChange(adopted, undo);
  return diffTreeChange(change);
}

/** The unified diff of a change, file by file, each labelled by its path. */
export function diffTreeChange(change: { files: readonly TreeChange['files'][number][] }): string {
  return change.files
    .map((f) => unifiedDiff(f.before, f.after, { old: f.before === '' ? '/dev/null' : f.path, new: f.path }))
    .join('');
}

/** `config rollback --spec S`: the last recorded change to the tree undone. */
export async function rollbackAdopted(
  adopted: AdoptedSpec,
  say?: (line: string) => void,
): Promise<TreeApplyReport> {
  const tree = await readNginxTree(adopted.nginx.conf);
  return rollbackTree(adopted.state, pidFileOfTree(adopted.nginx, tree.config), say);
}
