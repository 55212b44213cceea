import { realpath } from 'node:fs/promises';
import { liveLogsOf } from '../core/deploy/live-logs.js';
import type { LiveLogs } from '../core/deploy/watch-sight.js';
import { configuredLogs } from '../core/nginx-config/configured-logs.js';
import { readRunningConfig, runningNginxOf } from '../shell/nginx/running-nginx.js';

/**
 * What the nginx running behind `pidFile` writes of upstream `upstream`'s requests to the access
 * log `path`: every spelling of that file in its config (links resolved) counts. `notRead` says why
 * nothing was read (no master runs there, its config cannot be read).
 */
export async function readLiveAccessLog(
  pidFile: string,
  path: string,
  upstream: string,
): Promise<{ live: LiveLogs } | { notRead: string }> {
  let master;
  try {
    master = await runningNginxOf(pidFile);
  } catch (error) {
    // Its own words: a pid file missing, unreadable (permissions), or naming no nginx master.
    return { notRead: (error as Error).message };
  }
  let config;
  try {
    config = await readRunningConfig(master);
  } catch (error) {
    return { notRead: `the config of pid ${master.pid} cannot be read: ${(error as Error).message}` };
  }
  const real = (file: string) => realpath(file).catch(() => file);
  const wanted = await real(path);
  const files = configuredLogs(config, master.prefix)
    .filter((log) => log.kind === 'access')
    .map((log) => log.path);
  const resolved = await Promise.all(files.map(real));
  const same = new Set(files.filter((_, i) => resolved[i] === wanted));
  return { live: liveLogsOf(config, master, upstream, same) };
}
