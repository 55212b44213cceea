import { lstat, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { countChangedLines } from '../core/apply/unified-diff.js';
import { ProxyopsError } from '../core/errors.js';
import type { ReloadResult } from '../shell/nginx/reload-nginx.js';
import { writeAdoptionFile } from '../shell/nginx/adoption-file.js';
import { withTargetLock } from '../shell/nginx/target-lock.js';
import { recordTreeVersion, type TreeChangeKind } from '../shell/nginx/tree-history.js';
import { outsideDeploys } from './apply-config.js';
import {
  commitTreeChange,
  prepareTreeChange,
  type PreparedTreeChange,
  type TreeFileSet,
} from './tree-change-steps.js';

/** What a change to a hand-written tree did on this host. */
export interface TreeApplyReport {
  kind: TreeChangeKind;
  conf: string;
  state: string;
  /** The history version it was recorded as; absent when unchanged. */
  version?: string;
  /** Set when there was nothing to change: nothing written, nginx not reloaded. */
  unchanged?: true;
  files: Array<{ path: string; added: number; removed: number }>;
  /** Absent when no nginx runs from the pid file (files written only) or nothing changed. */
  reload?: ReloadResult;
}

/** How a change is applied: what it is, where nginx's pid is, and the adoption record it leaves. */
export interface TreeApplyOptions {
  kind: TreeChangeKind;
  state: string;
  pidFile: string;
  say?: (line: string) => void;
}

/**
 * A planned change, and the adoption record before and after it when it changes that (`after`
 * undefined removes STATE/adoption.json).
 */
export interface PlannedTreeChange {
  change: TreeFileSet;
  adoption?: { before: unknown; after: unknown };
}

/**
 * Plans under the state dir's locks (`plan` sees the tree as it is once no other proxyops changes
 * it), then prepares, commits and records the change: a version in the history and the adoption
 * record. An empty change writes nothing and reloads nothing.
 */
export async function applyTreeChange(
  options: TreeApplyOptions & { plan: () => Promise<PlannedTreeChange> },
): Promise<TreeApplyReport> {
  const state = resolve(options.state);
  await refuseRenderedTarget(state);
  await mkdir(state, { recursive: true, mode: 0o755 });
  return outsideDeploys(state, () =>
    withTargetLock(state, async () => {
      const say = options.say ?? (() => undefined);
      const { change, adoption } = await options.plan();
      const files = changedLines(change);
      const base = { kind: options.kind, conf: change.conf, state, files };
      if (change.files.length === 0) return { ...base, unchanged: true as const };
      const prepared = await prepareTreeChange(change, options.pidFile);
      say('validated: nginx -t ok on a copy of the changed tree');
      const { reload } = await commitTreeChange(prepared);
      const version = await recordTreeChange(
        state,
        options.kind,
        new Date().toISOString(),
        { change, ...(adoption ? { adoption } : {}) },
        prepared,
      );
      return { ...base, version, ...(reload ? { reload } : {}) };
    }),
  );
}

/** How many lines each file of a change adds and removes. */
function changedLines(change: TreeFileSet): Array<{ path: string; added: number; removed: number }> {
  return change.files.map(({ path, before, after }) => ({ path, ...countChangedLines(before, after) }));
}

/**
 * Records a committed change as the next version of the state's history (or as `name`: every host
 * of a change takes the same one), and the adoption record it leaves.
 */
export async function recordTreeChange(
  state: string,
  kind: TreeChangeKind,
  appliedAt: string,
  { change, adoption }: PlannedTreeChange,
  prepared: PreparedTreeChange,
  name?: string,
): Promise<string> {
  const version = await recordTreeVersion(
    state,
    {
      kind,
      appliedAt,
      conf: change.conf,
      summary: changedLines(change)
        .map((f) => `${f.path} +${f.added} -${f.removed}`)
        .join('; '),
      texts: change.files.map((f, i) => ({
        path: f.path,
        ...(prepared.originals[i]!.existed ? { before: f.before } : {}),
        ...(f.remove ? {} : { after: f.after }),
      })),
      ...(adoption ? { adoption } : {}),
    },
    name,
  );
  if (adoption) await writeAdoptionFile(state, adoption.after);
  return version;
}

/** A rendered config's target keeps its versions where the tree's history would go: never shared. */
export async function refuseRenderedTarget(state: string): Promise<void> {
  const current = await lstat(join(state, 'current')).catch(() => undefined);
  if (current)
    throw new ProxyopsError(
      'TARGET_INVALID',
      `${state} holds a rendered config (${join(state, 'current')}), not the state of a hand-written tree: give nginx.state or --target its own directory; nothing changed`,
    );
}
