import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import {
  describeBlocked,
  firstBlocked,
  parseGroup,
  parsePasswd,
  resolveWorkerUser,
  type PathEntry,
  type WorkerPath,
  type WorkerUser,
  workerPaths,
} from '../../core/apply/worker-access.js';
import { ProxyopsError } from '../../core/errors.js';
import { parseNginxConfig } from '../../core/nginx-config/parse-nginx-config.js';
import type { ProxySpec } from '../../core/spec/proxy-spec.js';
import { readLiveMasterPid } from './nginx-master.js';

/**
 * The components of `path` that exist, from / down, after symlinks are resolved (what the kernel
 * walks when a worker opens it); `complete` when the path itself exists. A missing tail is left
 * out: whoever creates it later needs only the part that exists to be reachable.
 */
export async function statComponents(path: string): Promise<{ entries: PathEntry[]; complete: boolean }> {
  let existing = path;
  let real = await realpath(existing).catch(() => undefined);
  while (real === undefined && dirname(existing) !== existing) {
    existing = dirname(existing);
    real = await realpath(existing).catch(() => undefined);
  }
  if (real === undefined) return { entries: [], complete: false };
  const parts = real.split(sep).filter(Boolean);
  const prefixes = ['/', ...parts.map((_, i) => join('/', ...parts.slice(0, i + 1)))];
  const entries = await Promise.all(
    prefixes.map(async (prefix) => {
      const info = await stat(prefix);
      return { path: prefix, mode: info.mode, uid: info.uid, gid: info.gid, isDirectory: info.isDirectory() };
    }),
  );
  return { entries, complete: existing === path };
}

/** uid, gid and groups of a live process from /proc/PID/status; undefined when it is gone. */
export async function readProcessCredentials(
  pid: number,
): Promise<{ uid: number; gids: number[] } | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  if (status === undefined) return undefined;
  const field = (name: string) =>
    (status.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
  // The effective ids (the second column) are what permission checks use.
  const uid = Number(field('Uid')[1]);
  const gid = Number(field('Gid')[1]);
  return { uid, gids: [gid, ...field('Groups').map(Number)] };
}

/** The `user USER [GROUP]` directive of a rendered main config, when it has one. */
export function readUserDirective(
  configText: string,
  file: string,
): { user: string; group?: string } | undefined {
  const found = parseNginxConfig(configText, file).find((d) => d.name === 'user');
  if (!found?.args[0]) return undefined;
  return { user: found.args[0], ...(found.args[1] ? { group: found.args[1] } : {}) };
}

/**
 * Who the workers of an nginx master run as: of the running master `masterPid`, or of one this
 * process would start. Undefined when the account a root master switches to does not exist.
 */
export async function findWorkerUser(
  options: { masterPid?: number; userDirective?: { user: string; group?: string } } = {},
): Promise<WorkerUser | undefined> {
  const master = (options.masterPid !== undefined && (await readProcessCredentials(options.masterPid))) || {
    uid: process.geteuid?.() ?? 0,
    gids: [process.getegid?.() ?? 0, ...(process.getgroups?.() ?? [])],
  };
  const [passwdText, groupText] = await Promise.all(
    ['/etc/passwd', '/etc/group'].map((file) => readFile(file, 'utf8').catch(() => '')),
  );
  const passwd = parsePasswd(passwdText!);
  const name = passwd.find((entry) => entry.uid === master.uid)?.name ?? `uid ${master.uid}`;
  return resolveWorkerUser(
    { uid: master.uid, self: { name, uid: master.uid, gids: [...new Set(master.gids)] } },
    options.userDirective,
    { passwd, groups: parseGroup(groupText!) },
  );
}

/**
 * Refuses (WORKERS_CANNOT_REACH, one line naming the path, the user and `fix`) when `user` cannot
 * reach one of `paths`: nginx would start and answer 502 (a socket) or lose its logs after a
 * rotation. Nothing is changed either way.
 */
export async function checkWorkerAccess(
  paths: readonly WorkerPath[],
  user: WorkerUser,
  fix: (path: WorkerPath, blocked: PathEntry) => string,
): Promise<void> {
  for (const path of paths) {
    const { entries, complete } = await statComponents(path.path);
    const blocked = firstBlocked(entries, user, path.need, complete);
    if (blocked)
      throw new ProxyopsError(
        'WORKERS_CANNOT_REACH',
        describeBlocked(path, blocked, user, fix(path, blocked)),
      );
  }
}

/**
 * For `config apply` and `deploy` on a running nginx (its pid file `spec.paths.pidFile`): refuses
 * before anything changes when the workers it runs, as the user `mainConfig` names (or nginx's
 * default), could not reach the sockets, temp or log directories of `spec`. Without a running
 * nginx nothing is started, so nothing is checked (`up` checks before it starts one).
 */
export async function checkSpecWorkerAccess(
  spec: ProxySpec,
  mainConfig?: { text: string; file: string },
): Promise<void> {
  const masterPid = await readLiveMasterPid(spec.paths.pidFile);
  if (masterPid === undefined) return;
  const userDirective = mainConfig && readUserDirective(mainConfig.text, mainConfig.file);
  const workers = await findWorkerUser({ masterPid, ...(userDirective ? { userDirective } : {}) });
  // A user the system lacks: nginx -t has already refused such a config.
  if (!workers) return;
  await checkWorkerAccess(
    workerPaths(spec),
    workers,
    (_path, blocked) =>
      `let ${workers.name} through (chmod o+x ${blocked.path}) or move it below directories ${workers.name} can traverse`,
  );
}
