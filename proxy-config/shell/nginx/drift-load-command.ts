import { driftError, type UpstreamDrift } from '../../core/adopt/managed-lines.js';
import { isProxyopsError } from '../../core/errors.js';
import { reloadCommandOf } from './master-runs-target.js';
import { readLiveMasterPid } from './nginx-master.js';
import { runningNginxAt } from './running-nginx.js';

/**
 * A drift refusal (ADOPT_DRIFT) that also names the command loading the lines once they are put
 * back, when a master runs from `pidFile`: putting them back changes the files after its workers
 * started, and whether the edit was loaded in between cannot be known, so the next apply refuses
 * until nginx loads them. Any other error is returned as it is.
 */
export async function withLoadCommand(error: unknown, pidFile: string): Promise<unknown> {
  if (!isProxyopsError(error) || error.code !== 'ADOPT_DRIFT') return error;
  const pid = await readLiveMasterPid(pidFile);
  const master = pid === undefined ? null : await runningNginxAt(pid);
  return master ? driftError(error.details as UpstreamDrift[], reloadCommandOf(master)) : error;
}
