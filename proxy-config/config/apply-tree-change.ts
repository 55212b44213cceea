import { lstat, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { countChangedLines } from '../core/apply/unified-diff.js';
import { ProxyopsError } from '../core/errors.js';
import type { ReloadResult } from '../shell/nginx/reload-nginx.js';
import { writeAdoptionFile } from '../shell/nginx/adoption-file.js';
import { versionDir } from '../shell/nginx/config-versions.js';
import { withTargetLock } from '../shell/nginx/target-lock.js';
import { inMadeDir } from '../shell/made-dir.js';
import { recordTreeVersion, type TreeChangeKind } from '../shell/nginx/tree-history.js';
import { outsideDeploys } from './apply-config.js';
import { refuseDroppingServing, type ChangeSpec } from './serving-check.js';
import { masterOfTree, refuseUnloaded } from './tree-master-check.js';
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
  /** Set when an undo found the blocks already as before adoption: only the record was dropped. */
  recordDropped?: true;
  files: Array<{ path: string; added: number; removed: number }>;
  /** Absent when no nginx runs from the pid file (files written only) or nothing changed. */
  reload?: ReloadResult;
}

/** How a change is applied: what it is and where its state is. */
export interface TreeApplyOptions {
  kind: TreeChangeKind;
  state: string;
  /** The spec the command was given: a change that would cut off a serving instance names it in the fix. */
  spec: ChangeSpec;
  say?: (line: string) => void;
}

/**
 * A planned change, and the adoption record before and after it when it changes that (`after`
 * undefined removes STATE/adoption.json).
 */
export interface PlannedTreeChange {
  change: TreeFileSet;
  adoption?: { before: unknown; after: unknown };
  /** Lines to say before the change is made (a parameter of the user's that costs something); never a refusal. */
  warnings?: string[];
}

/**
 * Plans under the state dir's locks (`plan` sees the tree as it is once no other proxyops changes
 * it, and names the pid file of the nginx that runs it), then prepares, records, commits: the
 * version and the adoption record are written before the first file, and taken back when the
 * commit fails, so a live change never goes without its record. An empty change writes nothing
 * and reloads nothing, once the live nginx is known to run what is on disk. A change that drops the
 * line of an address where an instance serves is refused before anything else is looked at.
 */
export async function applyTreeChange(
  options: TreeApplyOptions & { plan: () => Promise<PlannedTreeChange & { pidFile: string }> },
): Promise<TreeApplyReport> {
  const state = resolve(options.state);
  await refuseRenderedTarget(state);
  return inMadeDir(state, () =>
    outsideDeploys(state, () =>
      withTargetLock(state, async () => {
        const say = options.say ?? (() => undefined);
        const { change, adoption, pidFile, warnings = [] } = await options.plan();
        await refuseDroppingServing(state, change, options.spec);
        for (const warning of warnings) say(warning);
        const files = changedLines(change);
        const base = { kind: options.kind, conf: change.conf, state, files };
        const master = await masterOfTree(change.conf, pidFile);
        if (change.files.length === 0) {
          if (master) await refuseUnloaded(master, change.conf);
          // An undo of blocks already put back by hand: only the record goes.
          if (adoption) await writeAdoptionFile(state, adoption.after);
          return { ...base, unchanged: true as const, ...(adoption ? { recordDropped: true as const } : {}) };
        }
        const prepared = await prepareTreeChange(change, pidFile);
        say('validated: nginx -t ok on a copy of the changed tree');
        const planned = { change, ...(adoption ? { adoption } : {}) };
        const version = await recordTreeChange(
          state,
          options.kind,
          new Date().toISOString(),
          planned,
          prepared,
        );
        try {
          const { reload } = await commitTreeChange(prepared);
          return { ...base, version, ...(reload ? { reload } : {}) };
        } catch (error) {
          // commitTreeChange put every byte back: the version and the record go too.
          await rm(versionDir(state, version), { recursive: true, force: true });
          if (adoption) await writeAdoptionFile(state, adoption.before);
          throw error;
        }
      }),
    ),
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
