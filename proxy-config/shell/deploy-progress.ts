import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessIdentity } from './process/process-identity.js';
import { writeAtomically } from './stack-state.js';

/**
 * Where a running deploy is, written (atomically) before each step and removed when it ends. `down`
 * reads it to find the deploy, check it is still that process, and ask it to put its round back.
 */
export interface DeployProgress {
  pid: number;
  identity?: ProcessIdentity;
  /** 0 until the first step starts. */
  round: number;
  step: number;
  kind: string;
  /** Set while the deploy holds inside this step until it is interrupted (PROXYOPS_DEPLOY_HOLD). */
  held?: boolean;
}

/** The progress file of a config target. */
export function deployProgressPath(target: string): string {
  return join(target, 'deploy-progress.json');
}

export async function writeDeployProgress(target: string, progress: DeployProgress): Promise<void> {
  await writeAtomically(deployProgressPath(target), `${JSON.stringify(progress)}\n`);
}

/** The progress of the deploy running on `target`; undefined when none (or the file is unreadable). */
export async function readDeployProgress(target: string): Promise<DeployProgress | undefined> {
  try {
    const progress = JSON.parse(await readFile(deployProgressPath(target), 'utf8')) as DeployProgress;
    return Number.isInteger(progress.pid) ? progress : undefined;
  } catch {
    return undefined;
  }
}

export async function removeDeployProgress(target: string): Promise<void> {
  await rm(deployProgressPath(target), { force: true });
}
