import { join, resolve } from 'node:path';
import { toAdoptionRecord } from '../core/adopt/adoption-record.js';
import { ALTERNATE_MARK, alternateLinesOf } from '../core/adopt/alternate-marks.js';
import { planUndo } from '../core/adopt/managed-lines.js';
import { planAdoption } from '../core/adopt/plan-adoption.js';
import { restlessAlternates } from '../core/adopt/restless-alternates.js';
import type { NginxTree, TreeChange } from '../core/adopt/tree.js';
import { ProxyopsError } from '../core/errors.js';
import { unifiedDiff } from '../core/apply/unified-diff.js';
import type { AdoptedNginxSpec, ProxySpec } from '../core/spec/proxy-spec.js';
import { ADOPTION_FILE, readAdoptionFile } from '../shell/nginx/adoption-file.js';
import { withLoadCommand } from '../shell/nginx/drift-load-command.js';
import { pidFileOfTree, readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { applyTreeChange, type PlannedTreeChange, type TreeApplyReport } from './apply-tree-change.js';
import type { ChangeSpec } from './serving-check.js';
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
  /** The spec's path as given, for the commands a refusal names (absent on a host that was sent the spec). */
  specPath?: string;
}

/** The spec, when it names a hand-written config; undefined for a spec proxyops renders. */
export async function readAdoptedSpec(specPath: string, target?: string): Promise<AdoptedSpec | undefined> {
  const spec = await readSpecFile(specPath);
  if (!spec.nginx) return undefined;
  return { spec, nginx: spec.nginx, state: resolve(target ?? spec.nginx.state), specPath };
}

/**
 * What an adoption or its undo would change, planned on the tree as it is now. An adoption warns of
 * each alternate line nginx would never rest (its copied parameters), whether it is added now or was.
 */
export async function planAdoptionChange(
  adopted: AdoptedSpec,
  undo: boolean,
): Promise<PlannedTreeChange & { pidFile: string }> {
  const tree = await readNginxTree(adopted.nginx.conf);
  const pidFile = pidFileOfTree(adopted.nginx, tree.config);
  try {
    return { ...(await planOnTree(adopted, undo, tree)), pidFile };
  } catch (error) {
    throw await withLoadCommand(error, pidFile);
  }
}

/** The change and record planned on `tree`; a drift refusal here gets its load command above. */
async function planOnTree(adopted: AdoptedSpec, undo: boolean, tree: NginxTree): Promise<PlannedTreeChange> {
  const record = toAdoptionRecord(await readAdoptionFile(adopted.state), join(adopted.state, ADOPTION_FILE));
  if (!record) refuseMarksWithoutRecord(tree, adopted.state);
  if (undo) {
    if (!record) return { change: { conf: tree.conf, files: [] } };
    // A hand edit inside the managed lines would be lost: refused (a block put back as it was
    // before adoption is not an edit: then only the record goes).
    return { change: planUndo(tree, record), adoption: { before: record, after: undefined } };
  }
  const planned = planAdoption(tree, adopted.spec.upstreams, record);
  const after = new Map(tree.files);
  for (const file of planned.change.files) after.set(file.path, file.after);
  const warnings = restlessAlternates({ conf: tree.conf, files: after });
  if (planned.change.files.length === 0) return { change: planned.change, warnings };
  return { change: planned.change, warnings, adoption: { before: record, after: planned.record } };
}

/** The spec as a change names it in a refusal: its path (SPEC on a host that was sent it) and its upstreams. */
export function changeSpecOf(adopted: AdoptedSpec): ChangeSpec {
  return { path: adopted.specPath ?? 'SPEC', upstreams: adopted.spec.upstreams };
}

/**
 * Lines marked as proxyops' in a tree whose state directory holds no adoption record: the record
 * is elsewhere (another --target or nginx.state), or was lost. Refused rather than rebuilt from the
 * marks: the original text of each block, its history and the pending versions are in that other
 * directory, and a second record here would split them (an undo from either would be wrong).
 */
function refuseMarksWithoutRecord(tree: NginxTree, state: string): void {
  const marked = alternateLinesOf(tree);
  if (marked.length === 0) return;
  throw new ProxyopsError(
    'ADOPT_REFUSED',
    `${marked.join(', ')} ${marked.length === 1 ? 'is a line' : 'are lines'} proxyops added ("${ALTERNATE_MARK}"), but ${join(state, ADOPTION_FILE)} does not exist: this is likely not the state directory of that adoption (check --target or nginx.state); nothing changed`,
  );
}

/** `config apply --spec S [--undo-adopt]`: adopt the spec's upstreams in place, or put them back. */
export async function adoptNginx(
  adopted: AdoptedSpec,
  options: { undo?: boolean; say?: (line: string) => void },
): Promise<TreeApplyReport> {
  return applyTreeChange({
    kind: options.undo ? 'undo-adopt' : 'adopt',
    state: adopted.state,
    spec: changeSpecOf(adopted),
    ...(options.say ? { say: options.say } : {}),
    plan: () => planAdoptionChange(adopted, options.undo === true),
  });
}

/**
 * `config diff --spec S [--undo-adopt]`: the unified diff of every file the apply would change ('' when
 * none), and the warnings the apply would say.
 */
export async function diffAdoption(
  adopted: AdoptedSpec,
  undo = false,
): Promise<{ diff: string; warnings: string[] }> {
  const { change, warnings = [] } = await planAdoptionChange(adopted, undo);
  return { diff: diffTreeChange(change), warnings };
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
  return rollbackTree(adopted.state, pidFileOfTree(adopted.nginx, tree.config), changeSpecOf(adopted), say);
}
