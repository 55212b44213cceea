import { isAbsolute, join, resolve } from 'node:path';
import { isProxyopsError, ProxyopsError } from '../core/errors.js';
import type { NginxConfig } from '../core/nginx-config/types.js';
import { findNginxBinary } from '../shell/nginx/nginx-binary.js';
import { readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { filesChangedSince, workersStartedAt } from '../shell/nginx/loaded-since.js';
import { reloadAndConfirm, type ReloadResult } from '../shell/nginx/reload-nginx.js';
import { assertMasterRunsConf, reloadCommandOf } from '../shell/nginx/master-runs-target.js';
import type { RunningNginx } from '../shell/nginx/running-nginx.js';
import { testTreeCopy } from '../shell/nginx/test-tree-copy.js';
import {
  putBackAll,
  readOriginal,
  removeInPlace,
  writeInPlace,
  type OriginalFile,
} from '../shell/nginx/tree-files.js';

/**
 * The one way a change to a hand-written nginx tree is made, in steps so that several hosts can
 * each be prepared before any of them is changed: prepare (the live master runs this tree and
 * loaded it as it is on disk; the change passes nginx -t on a copy), commit (atomic writes in
 * place, reload, new workers confirmed; on failure every byte goes back) and undo (for a host
 * whose neighbour failed). Until commit nothing of the tree changes. The caller holds the locks.
 */

/** One file of a change: whole texts (`before` '' for a new file); `remove` deletes it. */
export interface TreeFileChange {
  path: string;
  before: string;
  after: string;
  remove?: boolean;
}

/** A change to the tree whose main file is `conf`. */
export interface TreeFileSet {
  conf: string;
  files: readonly TreeFileChange[];
}

/** A change tested and ready to commit, with what runs now and the files as they were. */
export interface PreparedTreeChange {
  change: TreeFileSet;
  originals: OriginalFile[];
  /** Absent when no nginx runs from the pid file: commit writes the files and reloads nothing. */
  masterPid?: number;
  errorLog?: string;
}

/**
 * Checks the live master and the disk, and tests the change on a copy; nothing is written. `cancel`
 * stops the test (nginx -t killed, the copy removed): the change is then refused.
 */
export async function prepareTreeChange(
  change: TreeFileSet,
  pidFile: string,
  cancel?: AbortSignal,
): Promise<PreparedTreeChange> {
  const conf = resolve(change.conf);
  const { readNginxConfig } = await import('../shell/nginx/read-nginx-config.js');
  const config = await readNginxConfig(conf, { checkDirectives: false });
  const originals: OriginalFile[] = [];
  for (const file of change.files) originals.push(await readOriginal(file.path, file.before));
  const masterPid = await readLiveMasterPid(pidFile);
  const master = masterPid === undefined ? undefined : await checkMaster(masterPid, conf, pidFile, config);
  await testTreeCopy(
    conf,
    config.files,
    change.files,
    master ? { binary: master.binary, prefix: master.prefix } : { binary: findNginxBinary() },
    cancel,
  );
  const errorLog = master ? mainErrorLog(config, master.prefix) : undefined;
  return {
    change,
    originals,
    ...(masterPid === undefined ? {} : { masterPid }),
    ...(errorLog ? { errorLog } : {}),
  };
}

/** Writes every file, reloads and confirms new workers; on any failure puts every byte back first. */
export async function commitTreeChange(prepared: PreparedTreeChange): Promise<{ reload?: ReloadResult }> {
  const { change, originals, masterPid, errorLog } = prepared;
  const written: OriginalFile[] = [];
  try {
    for (const [i, file] of change.files.entries()) {
      const original = originals[i]!;
      if (file.remove) await removeInPlace(original);
      else await writeInPlace(original, file.after);
      written.push(original);
    }
  } catch (error) {
    // Nothing reloaded: the live nginx still runs the originals, which go back (a file edited
    // meanwhile was not touched and stays as its editor left it).
    await putBackAll(written).catch((failure: unknown) => {
      throw new ProxyopsError(
        'TREE_PUT_BACK_FAILED',
        `${(error as Error).message}; ${(failure as Error).message}`,
        { cause: error },
      );
    });
    throw error;
  }
  if (masterPid === undefined) return {};
  try {
    return { reload: await reloadAndConfirm(masterPid, errorLog) };
  } catch (error) {
    const back = await undoTreeChange(prepared).then(
      () => 'every file was put back as it was and nginx reloaded onto it',
      (failure: unknown) => `putting the files back failed too: ${(failure as Error).message}`,
    );
    throw new ProxyopsError(
      isProxyopsError(error) ? error.code : 'RELOAD_FAILED',
      `${(error as Error).message}; ${back}`,
      { cause: error },
    );
  }
}

/** Puts every file back as it was before commit and reloads nginx onto it. */
export async function undoTreeChange(prepared: PreparedTreeChange): Promise<{ reload?: ReloadResult }> {
  await putBackAll(prepared.originals);
  if (prepared.masterPid === undefined) return {};
  return { reload: await reloadAndConfirm(prepared.masterPid, prepared.errorLog) };
}

/**
 * The master behind the pid file must run this tree (`-c` the spec's nginx.conf), and must have
 * loaded it as it is on disk: a file changed after its workers started may hold an edit nobody
 * tested or loaded, which our reload would take live with ours.
 */
async function checkMaster(
  pid: number,
  conf: string,
  pidFile: string,
  config: NginxConfig,
): Promise<RunningNginx> {
  const master = await assertMasterRunsConf(pid, conf, pidFile);
  const started = await workersStartedAt(pid);
  const changed = started === undefined ? [] : await filesChangedSince(config.files, started);
  if (changed.length > 0) {
    const [first] = changed;
    throw new ProxyopsError(
      'LIVE_NGINX_DIFFERS',
      `${first!.path} was changed at ${first!.changed.toISOString()}, after nginx master ${pid}'s workers started: the running config may not be the one on disk; nothing changed. Load them with: ${reloadCommandOf(master)} (or wait for whoever is editing)`,
    );
  }
  return master;
}

/** The main context's error_log, where a refused reload's [emerg] goes; undefined when not a file. */
function mainErrorLog(config: NginxConfig, prefix: string): string | undefined {
  const path = config.directives.find((d) => d.name === 'error_log')?.args[0];
  if (!path || path === 'stderr' || path.includes(':')) return undefined;
  return isAbsolute(path) ? path : join(prefix, path);
}
