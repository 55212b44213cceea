import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeGone, findGoneServers, recordAfterSwitch } from '../core/apply/server-drift.js';
import type { StatusDistribution } from '../core/apply/status-distribution.js';
import type { VersionManifest } from '../core/apply/version-manifest.js';
import { digestSpec } from '../core/apply/config-change.js';
import { ProxyopsError } from '../core/errors.js';
import { MAIN_CONFIG_FILE } from '../core/render/render-nginx-config.js';
import {
  checkTargetLayout,
  pruneVersions,
  readVersionState,
  versionDir,
} from '../shell/nginx/config-versions.js';
import { readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { isAlive } from '../shell/process/proc-process-tree.js';
import { lockDeploys, readStackState, writeStackState, type StackState } from '../shell/stack-state.js';
import type { ReloadResult } from '../shell/nginx/reload-nginx.js';
import { withTargetLock } from '../shell/nginx/target-lock.js';
import { checkSpecWorkerAccess } from '../shell/nginx/worker-access.js';
import type { ServersFrom } from './reconcile-servers.js';
import { renderForTarget } from './render-for-target.js';
import { prepareApply, readManifest, switchAndReload, switchApply, testStaged } from './apply-steps.js';
import { readStatusesBefore, watchStatusCodes, type WatchResult } from './watch-status-codes.js';

/** Versions kept under the target besides the current one. */
export const KEEP_VERSIONS = 5;

/** What `config apply` did. */
export interface ApplyReport {
  version: string;
  previous?: string;
  configPath: string;
  /** Set when the render equals the live version: nothing was written or reloaded. */
  unchanged?: true;
  /** Absent when no nginx was running: the files were installed, nothing was reloaded. */
  reload?: ReloadResult;
  watch?: WatchResult & { before: StatusDistribution };
  /** Set when the watch rolled the change back. */
  rolledBack?: { to: string; reload?: ReloadResult };
}

/** Options of an apply. */
export interface ApplyOptions {
  specPath: string;
  target: string;
  watchSeconds?: number;
  rollbackOn5xx?: number;
  /**
   * Set by `config apply`: how the spec's servers meet the instances recorded under the target.
   * Unset for `deploy` and `up`, which write the spec and the record together.
   */
  serversFrom?: ServersFrom;
  /** Progress lines for the operator. */
  say?: (line: string) => void;
}

/**
 * Render, validate, swap, reload, confirm, watch. Until the swap nothing live is touched: a config
 * that fails validation leaves the target byte-identical and nginx serving the old one.
 */
export async function applyConfig(options: ApplyOptions): Promise<ApplyReport> {
  if (options.rollbackOn5xx !== undefined && !(options.watchSeconds && options.watchSeconds > 0))
    throw new ProxyopsError('BAD_OPTION', '--rollback-on-5xx needs --watch SECONDS to watch for 5xx');
  // Absolute, so the paths it prints (and `nginx -c`) do not depend on the working directory.
  const target = resolve(options.target);
  await checkTargetLayout(target);
  await mkdir(target, { recursive: true, mode: 0o755 });
  if (options.serversFrom === undefined)
    return withTargetLock(target, () => applyLocked({ ...options, target }));
  return outsideDeploys(target, () => withTargetLock(target, () => applyLocked({ ...options, target })));
}

/** A deploy rewrites the config and the record step by step: an apply or rollback in between would undo one. */
export async function outsideDeploys<T>(target: string, work: () => Promise<T>): Promise<T> {
  const release = await lockDeploys(target);
  try {
    return await work();
  } finally {
    await release();
  }
}

async function applyLocked(options: ApplyOptions): Promise<ApplyReport> {
  const say = options.say ?? (() => undefined);
  const { spec, files, record } = await renderForTarget(
    options.specPath,
    options.target,
    options.serversFrom,
    say,
  );
  // A running nginx would reload into workers that answer 502 or lose their logs: refused first.
  await checkSpecWorkerAccess(spec, { text: files[MAIN_CONFIG_FILE]!, file: MAIN_CONFIG_FILE });
  const prepared = await prepareApply(options.target, {
    files,
    specDigest: digestSpec(spec),
    appliedAt: new Date().toISOString(),
  });
  if (prepared.unchanged) {
    // A reload would only cost nginx its idle client connections: nothing to gain.
    say(`unchanged: ${prepared.unchanged} already holds this render; nothing written, nginx not reloaded`);
    await record();
    return {
      version: prepared.unchanged,
      configPath: join(options.target, 'current', MAIN_CONFIG_FILE),
      unchanged: true,
      ...(prepared.before.previous ? { previous: prepared.before.previous } : {}),
    };
  }
  say('validated: nginx -t ok');
  const { before, masterPid, accessLog, logOffset } = prepared;
  const switched = await switchApply(prepared);
  const { version } = switched;
  const configPath = join(options.target, 'current', MAIN_CONFIG_FILE);
  say(`swapped: current -> ${version}${before.current ? ` (previous: ${before.current})` : ''}`);
  const report: ApplyReport = {
    version,
    configPath,
    ...(before.current ? { previous: before.current } : {}),
  };

  if (!switched.reload || masterPid === undefined) {
    say(`nginx is not running: installed only; start it with nginx -c ${configPath}`);
    await record();
    await pruneVersions(options.target, KEEP_VERSIONS);
    return report;
  }
  report.reload = switched.reload;
  say(
    `reloaded: master ${masterPid}, workers ${report.reload.workersBefore.join(',')} -> ${report.reload.workersAfter.join(',')}`,
  );

  if (options.watchSeconds && options.watchSeconds > 0) {
    if (!accessLog) {
      say('watch skipped: the access log is not a file');
    } else {
      say(`watching ${accessLog} for ${options.watchSeconds} s`);
      const { buffer, flush } = spec.accessLog;
      if (buffer !== null)
        say(
          `note: the access log is buffered (${buffer}, ${flush === null ? 'no flush interval' : `flushed every ${flush} s`}): its lines arrive late`,
        );
      const statusesBefore = await readStatusesBefore(accessLog, logOffset);
      const watch = await watchStatusCodes({
        accessLog,
        offset: logOffset,
        seconds: options.watchSeconds,
        ...(options.rollbackOn5xx === undefined ? {} : { rollbackAbove: options.rollbackOn5xx }),
      });
      report.watch = { ...watch, before: statusesBefore };
      if (watch.exceeded && !before.current)
        say('5xx share above the limit, but there is no previous version');
      if (watch.exceeded && before.current) {
        say(
          `5xx share ${(watch.after.share5xx * 100).toFixed(1)}% is above ${(options.rollbackOn5xx ?? 0) * 100}%: rolling back`,
        );
        report.rolledBack = {
          to: before.current,
          ...(await switchAndReload(options.target, before, masterPid)),
        };
      }
    }
  }
  if (!report.rolledBack) await record();
  await pruneVersions(options.target, KEEP_VERSIONS);
  return report;
}

/** Result of a rollback. */
export interface RollbackReport {
  from: string;
  to: string;
  reload?: ReloadResult;
  /** What `--force` overrode, when it did. */
  forced?: string;
}

/** Options of a rollback. */
export interface RollbackOptions {
  /** Roll back even to a version that routes to instances the record does not show answering. */
  force?: boolean;
  /** The kept version to go to (vNNNN); the previous one when unset. */
  to?: string;
}

/**
 * Points `current` back at `previous` (after nginx -t on it), reloads nginx when it runs and brings
 * TARGET/instances.json in line with the servers nginx now routes to.
 */
export function rollbackConfig(target: string, options: RollbackOptions = {}): Promise<RollbackReport> {
  const dir = resolve(target);
  return checkTargetLayout(dir).then(() =>
    outsideDeploys(dir, () => withTargetLock(dir, () => rollbackLocked(dir, options))),
  );
}

async function rollbackLocked(target: string, options: RollbackOptions): Promise<RollbackReport> {
  const state = await readVersionState(target);
  if (state.versions.length === 0)
    throw new ProxyopsError(
      'TARGET_INVALID',
      `${target} holds no config versions (nothing was applied there with \`proxyops config apply\`): nothing to roll back`,
    );
  const to = options.to ?? state.previous;
  if (options.to !== undefined && !state.versions.includes(options.to))
    throw new ProxyopsError(
      'VERSION_NOT_FOUND',
      `${target} keeps no version ${options.to}; kept: ${state.versions.join(', ')} (see proxyops config history --target ${target})`,
    );
  if (!state.current || !to)
    throw new ProxyopsError('NOTHING_TO_ROLL_BACK', `${target} has no previous version to roll back to`);
  if (to === state.current)
    throw new ProxyopsError('NOTHING_TO_ROLL_BACK', `${to} is already the current version of ${target}`);
  const previous = await readManifest(target, to);
  const { record, forced } = await checkRollbackServers(target, state.current, to, previous, options);
  const dir = versionDir(target, to);
  const files = { [MAIN_CONFIG_FILE]: await readFile(join(dir, MAIN_CONFIG_FILE), 'utf8') };
  await testStaged(dir, files);
  const running = await readManifest(target, state.current);
  const masterPid = await readLiveMasterPid(running.pidFile);
  const back = { current: to, previous: state.current, versions: state.versions };
  const report: RollbackReport = {
    from: state.current,
    to,
    ...(await switchAndReload(target, back, masterPid)),
    ...(forced ? { forced } : {}),
  };
  if (record && previous.servers)
    await writeStackState(target, {
      ...record,
      upstreams: recordAfterSwitch(record.upstreams, previous.servers),
    });
  return report;
}

/**
 * After a deploy, the previous version is its last round's "add" step, which still routes to the
 * instance the deploy then stopped: rolling back to it would send requests to a closed port.
 * Refuse unless forced; forced, say what was overridden.
 */
async function checkRollbackServers(
  target: string,
  current: string,
  previousVersion: string,
  previous: VersionManifest,
  options: RollbackOptions,
): Promise<{ record?: StackState; forced?: string }> {
  let record: StackState | undefined;
  try {
    record = await readStackState(target);
  } catch (error) {
    if (!options.force) throw error;
    return { forced: `${(error as Error).message}; rolled back without checking the servers` };
  }
  if (!record || !previous.servers) return record ? { record } : {};
  const pids = Object.values(record.upstreams).flatMap((pool) =>
    pool.flatMap((r) => (r.pid === undefined ? [] : [r.pid])),
  );
  const gone = findGoneServers(previous.servers, record.upstreams, new Set(pids.filter(isAlive)));
  if (gone.length === 0) return { record };
  const what = `${previousVersion} routes ${describeGone(gone)}`;
  if (!options.force)
    throw new ProxyopsError(
      'SERVERS_DIFFER_FROM_STATE',
      `refusing to roll back ${current} -> ${previousVersion}: ${what}, which ${target}/instances.json does not ` +
        'show serving or running. Nothing changed. To undo a deploy, deploy the previous build; pass --force ' +
        'only once those instances run again',
    );
  return { record, forced: what };
}
