import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { MAIN_CONFIG_FILE } from '../../core/render/render-nginx-config.js';
import { runningNginxAt, type RunningNginx } from './running-nginx.js';

/** True when the master's main file is the target's `current` one: the same file, through any links. */
export async function followsTargetCurrent(master: RunningNginx, target: string): Promise<boolean> {
  const [runs, current] = await Promise.all([
    realpath(master.configFile).catch(() => undefined),
    realpath(join(target, 'current', MAIN_CONFIG_FILE)).catch(() => undefined),
  ]);
  return runs !== undefined && runs === current;
}

/** How to put nginx on the target, for the messages below. */
function fix(target: string): string {
  return `give the spec its own paths.pidFile, or stop that nginx; then apply and start nginx with nginx -c ${join(target, 'current', MAIN_CONFIG_FILE)}`;
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
 * After a reload: the master that was signalled reads the target's current main file, which now
 * is the version just switched to (new workers alone do not say which config they run).
 * RELOAD_NOT_LOADED naming what it loaded otherwise.
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
