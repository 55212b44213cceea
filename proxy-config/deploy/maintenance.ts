import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeployTarget } from './deploy-context.js';
import { ProxyopsError } from '../core/errors.js';
import { maintenanceFlagPath } from '../core/maintenance/maintenance-files.js';
import { describeHealthPaths } from '../core/render/maintenance-view.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { writeMaintenanceOff, writeMaintenanceOn } from '../shell/nginx/maintenance-switch.js';

/** What `proxyops maintenance on|off` did. */
export interface MaintenanceOutcome {
  upstream: string;
  state: 'on' | 'off';
  /** False when it was already in that state (`off` with no flag; `on` again only changes Retry-After). */
  changed: boolean;
  retryAfter?: number;
  /** The flag file nginx tests on each request. */
  flag: string;
  /** The paths still served (the upstream's health checks): `/health/*`. */
  healthPaths: string;
}

/**
 * Turns maintenance mode of one upstream on or off by writing the files the running config tests
 * on each request: nginx is not reloaded. Refuses when the config nginx runs from the target does
 * not test them yet (rendered by an older proxyops, or another maintenanceDir): one apply fixes it.
 */
export async function setMaintenance(
  where: DeployTarget,
  options: { upstream: string; state: 'on' | 'off'; retryAfter: number },
): Promise<MaintenanceOutcome> {
  const spec = await readSpecFile(where.specPath);
  const pool = spec.upstreams[options.upstream];
  if (!pool)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--upstream ${options.upstream}: no such upstream (known: ${Object.keys(spec.upstreams).join(', ')})`,
    );
  const dir = spec.paths.maintenanceDir;
  const flag = maintenanceFlagPath(dir, options.upstream);
  const live = join(where.target, 'current', 'nginx.conf');
  const config = await readFile(live, 'utf8').catch(() => '');
  if (!config.includes(flag))
    throw new ProxyopsError(
      'MAINTENANCE_NOT_RENDERED',
      `${live} does not test ${flag}: apply the spec once with this proxyops (\`proxyops config apply\`); after that maintenance on/off needs no reload`,
    );
  const healthPaths = describeHealthPaths(pool.healthCheck.readinessPath);
  if (options.state === 'on') {
    const changed = await readFile(flag).then(
      () => false,
      () => true,
    );
    await writeMaintenanceOn(dir, options.upstream, options.retryAfter);
    return {
      upstream: options.upstream,
      state: 'on',
      changed,
      retryAfter: options.retryAfter,
      flag,
      healthPaths,
    };
  }
  const changed = await writeMaintenanceOff(dir, options.upstream);
  return { upstream: options.upstream, state: 'off', changed, flag, healthPaths };
}
