import { readFile } from 'node:fs/promises';
import {
  checkStopSetups,
  readStopSetups,
  type DeployCheckOptions,
  type DeployCheckReport,
} from '../core/deploy-check/check-stop-setups.js';
import { ProxyopsError } from '../core/errors.js';

export type { DeployCheckReport } from '../core/deploy-check/check-stop-setups.js';

/** Reads each file (a Kubernetes manifest, systemd unit or compose file) and checks its stop settings against the drain. */
export async function checkDeployFiles(
  paths: string[],
  options: DeployCheckOptions,
): Promise<DeployCheckReport> {
  const files = [];
  for (const file of paths) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ProxyopsError(
        'DEPLOY_CHECK_INPUT_INVALID',
        `${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        { cause: error },
      );
    }
    files.push({ file, read: readStopSetups(file, text) });
  }
  return checkStopSetups(files, options);
}
