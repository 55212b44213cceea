import { readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { MAIN_CONFIG_FILE } from '../../core/render/render-nginx-config.js';
import { runningNginxAt, type RunningNginx } from './running-nginx.js';

/** The kernel's own bound on links followed in one path. */
const MAX_LINKS = 40;

/**
 * `path`, then each path its symlink names in turn (a relative one against the link's directory),
 * read without requiring the end to exist: a link made before the first apply dangles.
 */
async function linkChain(path: string): Promise<string[]> {
  const chain = [resolve(path)];
  for (let i = 0; i < MAX_LINKS; i++) {
    const last = chain[chain.length - 1]!;
    const next = await readlink(last).catch(() => undefined);
    if (next === undefined) break;
    chain.push(resolve(dirname(last), next));
  }
  return chain;
}

/** The directory `dir` names once its links (not those of its parents) are resolved; itself when absent. */
const where = (dir: string) => realpath(dir).catch(() => resolve(dir));

/** True when some link on `path`'s chain is `TARGET/current` itself, not the version it points at now. */
async function namesCurrentDir(path: string, target: string): Promise<boolean> {
  const home = await where(target);
  for (const step of await linkChain(path))
    if (basename(step) === 'current' && (await where(dirname(step))) === home) return true;
  return false;
}

/**
 * True when the master's main file is named through the target's `current` link: its -c, or a
 * symlink on its chain (/etc/nginx/nginx.conf -> TARGET/current/nginx.conf), is
 * TARGET/current/nginx.conf, compared as a path without resolving `current`. On SIGHUP nginx opens
 * that path again, so it loads whatever `current` points at then; a master started on
 * versions/vNNNN/nginx.conf would reload that version whatever `current` says, and one whose link
 * is made before the first apply (so it dangles) loads the first version applied.
 */
export async function followsTargetCurrent(master: RunningNginx, target: string): Promise<boolean> {
  for (const step of await linkChain(master.configFile))
    if (basename(step) === MAIN_CONFIG_FILE && (await namesCurrentDir(dirname(step), target))) return true;
  return false;
}

/** How to put nginx on the target, for the messages below. */
function fix(target: string): string {
  const current = join(target, 'current', MAIN_CONFIG_FILE);
  return `make that -c a symlink to ${current} and apply again, give the spec its own paths.pidFile, or stop that nginx, apply, and start nginx with nginx -c ${current}`;
}

/** The master running as `pid`; LIVE_NGINX_UNREADABLE when /proc does not show its command line. */
async function masterAt(pid: number, from: string): Promise<RunningNginx> {
  const master = await runningNginxAt(pid);
  if (!master)
    throw new ProxyopsError(
      'LIVE_NGINX_UNREADABLE',
      `cannot read the command line of nginx master ${pid} (${from}) from /proc: cannot confirm it runs this target's config; nothing swapped`,
    );
  return master;
}

/**
 * Before a reload: the master `from` (its pid file) names must run the target's current config,
 * else its SIGHUP would load its own config again while the target claims the new one (a
 * hand-written nginx sharing the pid file). MASTER_RUNS_OTHER_CONFIG otherwise; nothing signalled.
 */
export async function assertMasterRunsTarget(masterPid: number, target: string, from: string): Promise<void> {
  const master = await masterAt(masterPid, from);
  if (await followsTargetCurrent(master, target)) return;
  const current = join(target, 'current', MAIN_CONFIG_FILE);
  const has = await realpath(current).catch(() => undefined);
  throw new ProxyopsError(
    'MASTER_RUNS_OTHER_CONFIG',
    `${from} names nginx master ${masterPid}, which runs -c ${master.configFile}, ${
      has ? `not ${current}` : `and ${target} holds no applied config yet`
    }: a reload would not load this config, so nothing was swapped or signalled; ${fix(target)}`,
  );
}

/**
 * After a reload: the master that was signalled still names the target's current main file, which
 * now is the version just switched to (new workers alone do not say which config they run; a link
 * on its -c may have been re-pointed since the check before). RELOAD_NOT_LOADED naming what it
 * loaded otherwise.
 */
export async function confirmLoadsTarget(masterPid: number, target: string): Promise<void> {
  const master = await masterAt(masterPid, `the master signalled`);
  if (await followsTargetCurrent(master, target)) return;
  const loaded = await realpath(master.configFile).catch(() => master.configFile);
  throw new ProxyopsError(
    'RELOAD_NOT_LOADED',
    `nginx master ${masterPid} reloaded ${loaded} (its -c ${master.configFile}), not ${join(target, 'current', MAIN_CONFIG_FILE)}: the new version is not what it runs`,
  );
}

/**
 * For a hand-written tree (no target `current` link): the master `from` names must run `-c` this
 * very main file (both resolved through their links), else its SIGHUP would not load the tree.
 * Returns the master; MASTER_RUNS_OTHER_CONFIG otherwise, nothing signalled.
 */
export async function assertMasterRunsConf(
  masterPid: number,
  conf: string,
  from: string,
): Promise<RunningNginx> {
  const master = await masterAt(masterPid, from);
  const same = async (path: string) => realpath(path).catch(() => resolve(path));
  if ((await same(master.configFile)) === (await same(conf))) return master;
  throw new ProxyopsError(
    'MASTER_RUNS_OTHER_CONFIG',
    `${from} names nginx master ${masterPid}, which runs -c ${master.configFile}, not ${conf}: a reload would not load this tree; nothing changed (give the spec the nginx.pidFile of the nginx that runs ${conf})`,
  );
}

/**
 * The one command every refusal names to make `master` load its tree again: nginx -t with its own
 * binary, -p and -c, then SIGHUP to that very master (`nginx -s reload` would find the master
 * through the config's `pid`, which may name another file than the one proxyops read).
 */
export function reloadCommandOf(master: RunningNginx): string {
  const prefix = master.prefix.endsWith('/') ? master.prefix : `${master.prefix}/`;
  return `${master.binary} -t -p ${prefix} -c ${master.configFile} && kill -HUP ${master.pid}`;
}
