import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLogFile, VERSION_MANIFEST_FILE, type VersionManifest } from '../core/apply/version-manifest.js';
import {
  isSameRender,
  summarizeChange,
  VERSION_RECORD_FILE,
  type VersionFiles,
  type VersionRecord,
} from '../core/apply/config-change.js';
import { ProxyopsError } from '../core/errors.js';
import {
  commitStagedVersion,
  discardStaged,
  readVersionFiles,
  readVersionState,
  restoreVersionState,
  stageVersion,
  switchCurrent,
  versionDir,
  type VersionState,
} from '../shell/nginx/config-versions.js';
import { readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { assertMasterRunsTarget, confirmLoadsTarget } from '../shell/nginx/master-runs-target.js';
import { fileSize } from '../shell/logs/read-file-range.js';
import { reloadAndConfirm, type ReloadResult } from '../shell/nginx/reload-nginx.js';
import { createTempPrefix } from '../shell/nginx/temp-prefix.js';
import { hasLintErrors } from './lint-config.js';
import { checkRenderedConfig } from './validate-config.js';

/**
 * The steps of an apply on one target, so that several targets (nginx hosts) can each be prepared
 * before any of them is switched: prepare (stage, lint, nginx -t), switch (commit, swap, reload),
 * and undo (links back, reload) for a host whose neighbour failed. Until `switchApply` nothing live
 * is touched. The caller holds the target's locks throughout.
 */

/** What a render brings to a target: its files and what its record says. */
export interface ApplyInput {
  /** Every file of the version: the nginx config and its manifest. */
  files: VersionFiles;
  specDigest: string;
  /** One instant for every host a change goes to, so their records agree. */
  appliedAt: string;
}

/** A target ready to switch: the new version staged and tested, what runs now noted. */
export interface PreparedApply {
  target: string;
  /** The live version when it already holds this render: nothing staged, nothing to switch. */
  unchanged?: string;
  staged?: string;
  before: VersionState;
  /** The number the next version would take here (the highest kept + 1). */
  nextVersion: number;
  masterPid?: number;
  manifest: VersionManifest;
  accessLog?: string;
  logOffset: number;
}

/** A target switched to the new version (and nginx reloaded when it runs). */
export interface SwitchedApply {
  prepared: PreparedApply;
  version: string;
  reload?: ReloadResult;
}

/** Stages the render under the target and tests it (lint, nginx -t); on any failure the staging goes. */
export async function prepareApply(target: string, input: ApplyInput): Promise<PreparedApply> {
  const { files } = input;
  const live = await readVersionState(target);
  // The manifest first: it names what a version needs, so its error is the one worth showing.
  const liveManifest = live.current ? await readManifest(target, live.current) : undefined;
  const liveFiles = live.current ? await readVersionFiles(target, live.current) : undefined;
  const manifest = JSON.parse(files[VERSION_MANIFEST_FILE]!) as VersionManifest;
  const nextVersion = Number(live.versions.at(-1)?.slice(1) ?? 0) + 1;
  if (live.current && isSameRender(liveFiles, files))
    return { target, unchanged: live.current, before: live, nextVersion, manifest, logOffset: 0 };
  const applied: VersionRecord = {
    appliedAt: input.appliedAt,
    specDigest: input.specDigest,
    summary: summarizeChange(liveFiles && liveManifest ? { files: liveFiles, ...liveManifest } : undefined, {
      files,
      servers: manifest.servers ?? {},
    }),
  };
  const staged = await stageVersion(target, {
    ...files,
    [VERSION_RECORD_FILE]: `${JSON.stringify(applied, null, 2)}\n`,
  });
  try {
    const config = Object.fromEntries(
      Object.entries(files).filter(([name]) => name !== VERSION_MANIFEST_FILE),
    );
    await testStaged(staged, config);
    const before = await readVersionState(target);
    const running = before.current ? await readManifest(target, before.current) : undefined;
    const pidFile = (running ?? manifest).pidFile;
    const masterPid = await readLiveMasterPid(pidFile);
    // Refused before anything is switched: a master running another config would not load this one.
    if (masterPid !== undefined) await assertMasterRunsTarget(masterPid, target, pidFile);
    const accessLog = isLogFile(manifest.accessLog.path) ? manifest.accessLog.path : undefined;
    const logOffset = accessLog ? await fileSize(accessLog) : 0;
    return {
      target,
      staged,
      before,
      nextVersion,
      manifest,
      logOffset,
      ...(masterPid === undefined ? {} : { masterPid }),
      ...(accessLog ? { accessLog } : {}),
    };
  } catch (error) {
    await discardStaged(staged);
    throw error;
  }
}

/** Removes what `prepareApply` staged, when the change goes no further. */
export async function discardApply(prepared: PreparedApply): Promise<void> {
  if (prepared.staged) await discardStaged(prepared.staged);
}

/**
 * Commits the staged version (named `version` when given: every host of a change takes the same
 * name), points `current` at it and reloads a running nginx, waiting for its new workers. When nginx
 * refuses the config, the links go back before the error is thrown.
 */
export async function switchApply(prepared: PreparedApply, version?: string): Promise<SwitchedApply> {
  const { target, staged, before, masterPid, manifest } = prepared;
  if (!staged) throw new ProxyopsError('NOTHING_STAGED', `nothing is staged under ${target}`);
  let committed: string;
  try {
    committed = await commitStagedVersion(target, staged, version);
  } catch (error) {
    await discardStaged(staged);
    throw error;
  }
  await switchCurrent(target, committed);
  if (masterPid === undefined) return { prepared, version: committed };
  try {
    const reload = await reloadAndConfirm(masterPid, errorLogFile(manifest));
    await confirmLoadsTarget(masterPid, target);
    return { prepared, version: committed, reload };
  } catch (error) {
    // nginx kept the old config: put the links back so the files match what runs.
    await restoreVersionState(target, before);
    throw error;
  }
}

/** Puts a switched target back on the version it ran before, reloading nginx onto it. */
export async function undoApply(switched: SwitchedApply): Promise<{ reload?: ReloadResult }> {
  const { target, before, masterPid } = switched.prepared;
  return switchAndReload(target, before, masterPid);
}

/** Points the links as `wanted` says and reloads; if nginx refuses, the links go back. */
export async function switchAndReload(
  target: string,
  wanted: VersionState,
  masterPid: number | undefined,
): Promise<{ reload?: ReloadResult }> {
  const before = await readVersionState(target);
  if (masterPid !== undefined && wanted.current)
    await assertMasterRunsTarget(masterPid, target, `the pid file of ${target}'s nginx`);
  await restoreVersionState(target, wanted);
  if (masterPid === undefined || !wanted.current) return {};
  try {
    const reload = await reloadAndConfirm(
      masterPid,
      errorLogFile(await readManifest(target, wanted.current)),
    );
    await confirmLoadsTarget(masterPid, target);
    return { reload };
  } catch (error) {
    await restoreVersionState(target, before);
    throw error;
  }
}

/** The validation of an apply: lint errors or a failing nginx -t stop it before anything live changes. */
export async function testStaged(dir: string, files: Record<string, string>): Promise<void> {
  const scratch = await createTempPrefix('apply');
  try {
    const { lint } = await checkRenderedConfig(dir, files, {
      prefix: scratch.dir,
      startupErrorLog: join(scratch.dir, 'logs', 'error.log'),
    });
    if (hasLintErrors(lint)) {
      const found = lint.findings
        .filter((f) => f.severity === 'error')
        .map((f) => `  ${f.file}:${f.line} ${f.ruleId}: ${f.what}`);
      throw new ProxyopsError(
        'LINT_FAILED',
        ['lint found errors in the rendered config:', ...found].join('\n'),
        {
          details: lint,
        },
      );
    }
  } finally {
    await scratch.remove();
  }
}

/** The manifest of a kept version; VERSION_UNREADABLE naming the file when it cannot be read. */
export async function readManifest(target: string, version: string): Promise<VersionManifest> {
  const path = join(versionDir(target, version), VERSION_MANIFEST_FILE);
  try {
    return JSON.parse(await readFile(path, 'utf8')) as VersionManifest;
  } catch (error) {
    throw new ProxyopsError('VERSION_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The error log a reload's [emerg] lines go to, when it is a file. */
export function errorLogFile(manifest: VersionManifest): string | undefined {
  return isLogFile(manifest.errorLog) ? manifest.errorLog : undefined;
}
