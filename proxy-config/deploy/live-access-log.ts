import { realpath } from 'node:fs/promises';
import type { LiveLogs, LogWriter } from '../core/deploy/watch-sight.js';
import { accessLogWriters, configuredLogs, logFormatNamed } from '../core/nginx-config/configured-logs.js';
import { readRunningConfig, runningNginxOf } from '../shell/nginx/running-nginx.js';

/**
 * What the nginx running behind `pidFile` writes to the access log `path` (matched with links
 * resolved): each access_log line writing it, with its format and buffering. `notRead` says why
 * nothing was read (no master runs there, its config cannot be read).
 */
export async function readLiveAccessLog(
  pidFile: string,
  path: string,
): Promise<{ live: LiveLogs } | { notRead: string }> {
  const master = await runningNginxOf(pidFile).catch(() => undefined);
  if (!master) return { notRead: `no nginx master runs behind ${pidFile}` };
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
  const written = files.find((_, i) => resolved[i] === wanted);
  const writers: LogWriter[] = (written ? accessLogWriters(config, master.prefix, written) : []).map(
    (writer) => ({
      formatName: writer.formatName ?? 'combined',
      format: formatNamed(config, writer.formatName ?? 'combined'),
      where: writer.where,
      buffered: writer.buffered,
      flushMs: writer.flushMs,
      gzip: writer.gzip,
    }),
  );
  return { live: { pid: master.pid, configFile: master.configFile, writers, files } };
}

/** The log_format of that name; null when absent or unreadable (nginx would not have started with it). */
function formatNamed(config: Parameters<typeof logFormatNamed>[0], name: string) {
  try {
    return logFormatNamed(config, name);
  } catch {
    return null;
  }
}
