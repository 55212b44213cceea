import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno } from '../describe-path.js';
import { writeAtomically } from '../stack-state.js';

/** STATE/adoption.json: what proxyops adopted in the tree (drift and undo are read from it). */
export const ADOPTION_FILE = 'adoption.json';

/** The adoption record kept under the state dir; undefined when nothing is adopted. */
export async function readAdoptionFile(state: string): Promise<unknown> {
  const path = join(state, ADOPTION_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ProxyopsError('STATE_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProxyopsError('STATE_UNREADABLE', `${path} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Writes (atomically) or, for undefined, removes the adoption record. Private (0600, the state
 * files' mode): it holds each block's text, which may name what the versions' private copies hide.
 */
export async function writeAdoptionFile(state: string, record: unknown): Promise<void> {
  const path = join(state, ADOPTION_FILE);
  if (record === undefined) await rm(path, { force: true });
  else await writeAtomically(path, `${JSON.stringify(record, null, 2)}\n`);
}
