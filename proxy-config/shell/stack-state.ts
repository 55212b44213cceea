import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProxyopsError } from '../core/errors.js';
import type { ProcessIdentity } from './process-identity.js';
import { takePidLock } from './target-lock.js';

/** One running instance of an upstream pool, as recorded by `up` and `deploy`. */
export interface InstanceRecord {
  host: string;
  port: number;
  /** Unknown for an instance proxyops did not start (found by its listening socket when needed). */
  pid?: number;
  logFile?: string;
  /** False while a new instance is not yet in the upstream. */
  inUpstream: boolean;
  /** Read from /proc when the process was started: a pid is signalled only while it still matches. */
  identity?: ProcessIdentity;
  /** Behind a slot: the upstream slot path nginx connects to (the stable address). */
  slot?: string;
  /** Behind a slot: the socket path this process listens on (a second name of its socket, kept so it can be renamed back). */
  socket?: string;
}

/** What runs under a config target: the instances of each pool and, for `proxyops up`, the stack. */
export interface StackState {
  version: 1;
  upstreams: Record<string, InstanceRecord[]>;
  /** Extra environment every instance gets (the shared DATABASE_URL of the local stack). */
  instanceEnv?: Record<string, string>;
  /** Set by `proxyops up`: the supervising process and what it started. */
  stack?: { supervisorPid: number; specPath: string; nginxPidFile: string; url: string; logsDir: string };
}

/** The state file of a config target. */
export function stackStatePath(target: string): string {
  return join(target, 'instances.json');
}

/** Reads the state of a target; undefined when there is none. */
export async function readStackState(target: string): Promise<StackState | undefined> {
  const path = stackStatePath(target);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ProxyopsError('STATE_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch (error) {
    throw new ProxyopsError('STATE_UNREADABLE', `${path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const upstreams = (state as { upstreams?: unknown } | null)?.upstreams;
  if (typeof upstreams !== 'object' || upstreams === null || !Object.values(upstreams).every(Array.isArray))
    throw new ProxyopsError('STATE_UNREADABLE', `${path} has no "upstreams" object of instance lists`);
  return state as StackState;
}

/** Writes the state by an atomic rename, so a reader never sees half a file. */
export async function writeStackState(target: string, state: StackState): Promise<void> {
  const path = stackStatePath(target);
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temp, path);
}

/** Removes the state file (the stack is down). */
export async function removeStackState(target: string): Promise<void> {
  await rm(stackStatePath(target), { force: true });
}

/**
 * Takes the deploy lock of a target (a file holding this pid, created exclusively); DEPLOY_RUNNING
 * when a live process holds it. A lock left by a dead process is taken over.
 */
export async function lockDeploys(target: string): Promise<() => Promise<void>> {
  const path = join(target, 'deploy.lock');
  await takePidLock(path, {
    busy: (holder) =>
      new ProxyopsError('DEPLOY_RUNNING', `another deploy (pid ${holder}) is running on ${target}`),
    stuck: () => new ProxyopsError('DEPLOY_RUNNING', `cannot take ${path}`),
    missing: (error) => new ProxyopsError('TARGET_MISSING', `${target} does not exist`, { cause: error }),
  });
  return () => rm(path, { force: true });
}
