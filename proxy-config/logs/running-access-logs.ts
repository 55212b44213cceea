import { ProxyopsError } from '../core/errors.js';
import { accessLogPathsOfOneFormat, configuredLogs } from '../core/nginx-config/configured-logs.js';
import { chooseRunningNginx, readRunningConfig } from '../shell/nginx/running-nginx.js';

/**
 * The access logs the nginx running here writes to files, found as `diagnose` finds them (its config,
 * its prefix; the pid file's master when several run): what `logs stats --host H` reads on H when
 * given no file. BAD_OPTION when no nginx runs or it writes no access log to a file.
 */
export async function findRunningAccessLogs(pidFile?: string): Promise<string[]> {
  const running = await chooseRunningNginx(pidFile, '--pid-file FILE (a path on that host)');
  if (!running) throw new ProxyopsError('BAD_OPTION', 'no nginx runs there; give the log files to read');
  const config = await readRunningConfig(running);
  const logs = accessLogPathsOfOneFormat(configuredLogs(config, running.prefix));
  if (logs.length === 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      `the nginx running there (pid ${running.pid}, ${running.configFile}) writes no access log to a file; give the log files to read`,
    );
  return logs;
}
