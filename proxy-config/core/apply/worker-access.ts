import { isLogFile } from './version-manifest.js';
import type { ProxySpec } from '../spec/proxy-spec.js';

/** One existing component of a path, as stat(2) tells it (symlinks already resolved). */
export interface PathEntry {
  path: string;
  mode: number;
  uid: number;
  gid: number;
  isDirectory: boolean;
}

/** Who nginx's workers run as. */
export interface WorkerUser {
  name: string;
  uid: number;
  /** The primary group and the supplementary groups (initgroups). */
  gids: number[];
}

/**
 * What the workers do with a path: `search` a directory (reach what is below it: temp files, the cache,
 * a log file they reopen), `connect` to a socket (write permission on the socket file).
 */
export type WorkerNeed = 'search' | 'connect';

/** A path nginx's workers open after they started, and why. */
export interface WorkerPath {
  path: string;
  need: WorkerNeed;
  what: string;
}

/** nginx's user when its master runs as root and the config names none (its compiled-in default). */
export const NGINX_DEFAULT_USER = 'nobody';
/** The group nginx takes for `nobody` on a system without a group of that name (Debian: nogroup). */
const NGINX_DEFAULT_GROUPS = ['nobody', 'nogroup'];

/** An account of /etc/passwd. */
export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

/** A group of /etc/group with its listed members. */
export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

/** The accounts of an /etc/passwd text (name:x:uid:gid:...). */
export function parsePasswd(text: string): PasswdEntry[] {
  return text.split('\n').flatMap((line) => {
    const [name, , uid, gid] = line.split(':');
    return name && uid !== undefined && gid !== undefined && /^\d+$/.test(uid) && /^\d+$/.test(gid)
      ? [{ name, uid: Number(uid), gid: Number(gid) }]
      : [];
  });
}

/** The groups of an /etc/group text (name:x:gid:member,member). */
export function parseGroup(text: string): GroupEntry[] {
  return text.split('\n').flatMap((line) => {
    const [name, , gid, members = ''] = line.split(':');
    return name && gid !== undefined && /^\d+$/.test(gid)
      ? [{ name, gid: Number(gid), members: members.split(',').filter(Boolean) }]
      : [];
  });
}

/**
 * The user nginx's workers run as. A master that is not root cannot switch: its workers are the
 * master's user (`self`). A root master switches to the config's `user USER [GROUP]` or, without
 * one, to nginx's default `nobody`; the group is the named one (or nginx's default), and initgroups
 * adds the groups that list the user. Undefined when the account does not exist.
 */
export function resolveWorkerUser(
  master: { uid: number; self: WorkerUser },
  userDirective: { user: string; group?: string } | undefined,
  accounts: { passwd: PasswdEntry[]; groups: GroupEntry[] },
): WorkerUser | undefined {
  if (master.uid !== 0) return master.self;
  const name = userDirective?.user ?? NGINX_DEFAULT_USER;
  const account = accounts.passwd.find((entry) => entry.name === name);
  if (!account) return undefined;
  const groupNames = userDirective?.group
    ? [userDirective.group]
    : userDirective
      ? [name]
      : NGINX_DEFAULT_GROUPS;
  const primary =
    accounts.groups.find((group) => groupNames.includes(group.name))?.gid ??
    (userDirective?.group === undefined ? account.gid : undefined);
  const supplementary = accounts.groups.filter((g) => g.members.includes(name)).map((g) => g.gid);
  return {
    name,
    uid: account.uid,
    gids: [...new Set([...(primary === undefined ? [] : [primary]), ...supplementary])],
  };
}

/** The permission bits (rwx as 4/2/1) that apply to `user` on `entry`: owner, else group, else other. */
function bitsFor(entry: PathEntry, user: WorkerUser): number {
  if (entry.uid === user.uid) return (entry.mode >> 6) & 7;
  if (user.gids.includes(entry.gid)) return (entry.mode >> 3) & 7;
  return entry.mode & 7;
}

/**
 * The first component of a path that `user` cannot pass: every directory needs search (x); the path
 * itself, when it exists (`complete`: the last entry is the path) and the need is `connect`, needs
 * write (w). `entries` go from / down and hold the components that exist (a missing tail is created
 * later by whoever may). Root passes everything. Access control lists are not read: a path only an
 * ACL opens is reported blocked.
 */
export function firstBlocked(
  entries: readonly PathEntry[],
  user: WorkerUser,
  need: WorkerNeed,
  complete: boolean,
): PathEntry | undefined {
  if (user.uid === 0) return undefined;
  const last = entries.at(-1);
  return entries.find((entry) => {
    const bits = bitsFor(entry, user);
    if (complete && entry === last && need === 'connect' && !entry.isDirectory) return (bits & 2) === 0;
    return entry.isDirectory && (bits & 1) === 0;
  });
}

/** The directory a file path is in. */
function dirnameOf(path: string): string {
  const cut = path.replace(/\/+$/, '').lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/**
 * What the workers of `spec`'s nginx open after they started: the upstream sockets (every new
 * connection), the temp directory (request bodies, buffered answers, the cache under it) and the
 * log files' directories (reopened by path on USR1, after a rotation). The master (root) opens the
 * rest before it switches user: the config, certificates, the njs script, the pid file.
 */
export function workerPaths(spec: ProxySpec): WorkerPath[] {
  const sockets = Object.entries(spec.upstreams).flatMap(([name, pool]) =>
    pool.servers.flatMap((server) =>
      server.socket === undefined
        ? []
        : [
            // The socket file itself may not exist yet (its instance starts later): its directory is what must be reachable now.
            { path: server.socket, need: 'connect' as const, what: `the socket of upstream ${name}` },
          ],
    ),
  );
  const logs = [spec.accessLog.path, spec.errorLog.path]
    .filter(isLogFile)
    .map((path) => ({ path: dirnameOf(path), need: 'search' as const, what: 'the log directory' }));
  const paths: WorkerPath[] = [
    ...sockets,
    { path: spec.paths.tempDir, need: 'search', what: 'the temp directory (and the cache under it)' },
    // Every proxied request tests its upstream's flag there: unreachable, maintenance would never show.
    { path: spec.paths.maintenanceDir, need: 'search', what: 'the maintenance flag directory' },
    ...logs,
  ];
  return paths.filter((p, i) => paths.findIndex((q) => q.path === p.path) === i);
}

/** Octal mode of an entry, as `ls -l` users read it (0700). */
function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** The one line saying which path the workers cannot reach, as whom, what blocks it, and the fix. */
export function describeBlocked(path: WorkerPath, blocked: PathEntry, user: WorkerUser, fix: string): string {
  const why = !blocked.isDirectory
    ? `${blocked.path} is mode ${octal(blocked.mode)} (owner uid ${blocked.uid}): no write permission for it`
    : `${blocked.path} is mode ${octal(blocked.mode)} (owner uid ${blocked.uid}, group ${blocked.gid}): it cannot pass`;
  return `nginx's workers run as ${user.name} (uid ${user.uid}) and cannot reach ${path.what} ${path.path}: ${why}; ${fix}`;
}
