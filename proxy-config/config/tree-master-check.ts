import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ProxyopsError } from '../core/errors.js';
import { filesChangedSince, workersStartedAt } from '../shell/nginx/loaded-since.js';
import { reloadCommandOf } from '../shell/nginx/master-runs-target.js';
import { readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { findRunningNginx, runningNginxAt, type RunningNginx } from '../shell/nginx/running-nginx.js';

/**
 * Which nginx runs a hand-written tree, checked before anything is written: a wrong pid file
 * (another nginx's, an empty or stale one) must not turn "nginx runs this tree" into "files
 * written only", nor a later apply into "unchanged" while nginx never loaded them.
 */

const where = (path: string) => realpath(path).catch(() => resolve(path));

/**
 * The master the pid file names (undefined when it names none and no master runs `conf`).
 * PID_FILE_NOT_MASTER when a master runs with -c `conf` (resolved as running-nginx.ts resolves
 * it, links followed) but the pid file does not name it: its reload would be skipped or sent to
 * another nginx. Nothing is written.
 */
export async function masterOfTree(conf: string, pidFile: string): Promise<RunningNginx | undefined> {
  const pid = await readLiveMasterPid(pidFile);
  const home = await where(conf);
  const running: RunningNginx[] = [];
  for (const master of await findRunningNginx())
    if ((await where(master.configFile)) === home) running.push(master);
  const named = running.find((m) => m.pid === pid);
  const others = running.filter((m) => m.pid !== pid);
  if (others.length > 0) {
    const list = others.map((m) => `${m.pid} (${m.binary} -p ${m.prefix} -c ${m.configFile})`).join(', ');
    const says =
      pid === undefined ? 'names no running nginx master' : `names master ${pid}, which runs another config`;
    throw new ProxyopsError(
      'PID_FILE_NOT_MASTER',
      `nginx master ${list} runs ${conf}, but the pid file ${pidFile} ${says}: its reload would be missed; nothing changed (set the spec's nginx.pidFile to the pid file of master ${others[0]!.pid}, the conf's own \`pid\` directive)`,
    );
  }
  if (named) return named;
  return pid === undefined ? undefined : ((await runningNginxAt(pid)) ?? undefined);
}

/**
 * With nothing to write: the master running the tree must have loaded it as it is on disk, or a
 * change written earlier without a reload (or by hand) is not live while proxyops says
 * "unchanged". LIVE_NGINX_DIFFERS with the exact command that loads it; nothing is signalled,
 * because what is on disk may not be what the user means to serve.
 */
export async function refuseUnloaded(master: RunningNginx, conf: string): Promise<void> {
  const started = await workersStartedAt(master.pid);
  if (started === undefined) return;
  const [first] = await filesChangedSince(await filesOfTree(conf), started);
  if (!first) return;
  throw new ProxyopsError(
    'LIVE_NGINX_DIFFERS',
    `${first.path} was changed at ${first.changed.toISOString()}, after nginx master ${master.pid}'s workers started: the files hold what this apply would write, but nginx has not loaded them; nothing changed. Load them with: ${reloadCommandOf(master)}`,
  );
}

/** Every file nginx reads of the tree whose main file is `conf`. */
async function filesOfTree(conf: string): Promise<string[]> {
  const { readNginxConfig } = await import('../shell/nginx/read-nginx-config.js');
  return (await readNginxConfig(resolve(conf), { checkDirectives: false })).files;
}
