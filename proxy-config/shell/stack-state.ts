import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startProblem, type RecordedStart } from '../core/deploy/own-start.js';
import { ProxyopsError } from '../core/errors.js';
import { writeFileAtomically } from './atomic-write.js';
import type { ProcessIdentity } from './process/process-identity.js';
import { takePidLock } from './nginx/target-lock.js';

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
  /**
   * Extra environment every instance gets (the shared DATABASE_URL of the local stack). In memory
   * it is whole; on disk the secret names in it live in `secretsFile` only (see `writeStackState`).
   */
  instanceEnv?: Record<string, string>;
  /** On disk only: which environment names were moved to the 0600 secrets file, and its name. */
  instanceSecrets?: { file: string; names: string[] };
  /** Per upstream, the release (`deploy --version`) running and the one before it (`deploy rollback`). */
  releases?: Record<string, { current: string; previous?: string }>;
  /**
   * Per upstream, the new instances' own starts in the last deploy that went through: the next
   * deploy's latency gate compares its new instance with them at the same age (core/deploy/own-start.ts).
   */
  starts?: Record<string, RecordedStart>;
  /** Set by `proxyops up`: the supervising process and what it started. */
  stack?: {
    supervisorPid: number;
    /** Read from /proc at start: `down` signals the supervisor only while it still matches. */
    supervisorIdentity?: ProcessIdentity;
    specPath: string;
    nginxPidFile: string;
    url: string;
    logsDir: string;
  };
}

/** The state file of a config target. */
export function stackStatePath(target: string): string {
  return join(target, 'instances.json');
}

/** The file beside it holding the instances' secret environment (mode 0600). */
const SECRETS_FILE = 'instance-secrets.json';

/**
 * Environment names whose values are secrets or may hold one (a URL with a password): never in the
 * state file, which status commands read and people paste into issues.
 */
export const SECRET_ENV_NAMES: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'REDIS_URL',
  'PROXYOPS_JWT_SECRET',
]);

/** Only the owner may read state: it names processes, ports and log files, and refers to secrets. */
const STATE_FILE_MODE = 0o600;

/** Writes `path` by an atomic rename (mode 0600 unless given), so a reader never sees half a file. */
export async function writeAtomically(path: string, text: string, mode = STATE_FILE_MODE): Promise<void> {
  // The mode is set on the temp file before the rename: no moment in which the file is readable.
  await writeFileAtomically(path, text, { mode });
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
  const starts = Object.entries((state as StackState).starts ?? {});
  const bad = starts.map(([upstream, start]) => [upstream, startProblem(start)]).find(([, p]) => p);
  if (bad)
    throw new ProxyopsError(
      'STATE_UNREADABLE',
      `${path}: starts.${bad[0]} is not a recorded start (${bad[1]}); remove it, and the next deploy that goes through records it again`,
    );
  return withSecrets(target, state as StackState);
}

/** Puts the secret environment the state file refers to back into `instanceEnv`. */
async function withSecrets(target: string, state: StackState): Promise<StackState> {
  const { instanceSecrets, ...rest } = state;
  if (!instanceSecrets) return rest;
  // Only the one file name this module writes: the state file cannot point a reader elsewhere.
  if (instanceSecrets.file !== SECRETS_FILE || !Array.isArray(instanceSecrets.names))
    throw new ProxyopsError(
      'STATE_UNREADABLE',
      `${stackStatePath(target)} refers to secrets in ${JSON.stringify(instanceSecrets.file)}; expected ${SECRETS_FILE}`,
    );
  const path = join(target, SECRETS_FILE);
  let secrets: Record<string, string>;
  try {
    secrets = JSON.parse(await readFile(path, 'utf8')) as Record<string, string>;
  } catch (error) {
    throw new ProxyopsError(
      'STATE_UNREADABLE',
      `cannot read ${path}, which ${stackStatePath(target)} refers to for ${instanceSecrets.names.join(', ')}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const picked = Object.fromEntries(instanceSecrets.names.map((name) => [name, String(secrets[name] ?? '')]));
  return { ...rest, instanceEnv: { ...rest.instanceEnv, ...picked } };
}

/**
 * Writes the state by an atomic rename, so a reader never sees half a file, mode 0600. Secret
 * environment values go to a 0600 file beside it; the state file holds only their names and the
 * file's name (a reference), never the values.
 */
export async function writeStackState(target: string, state: StackState): Promise<void> {
  const { instanceEnv = {}, instanceSecrets: _stale, ...rest } = state;
  const secretNames = Object.keys(instanceEnv).filter((name) => SECRET_ENV_NAMES.has(name));
  const onDisk: StackState = {
    ...rest,
    instanceEnv: Object.fromEntries(
      Object.entries(instanceEnv).filter(([name]) => !SECRET_ENV_NAMES.has(name)),
    ),
  };
  if (secretNames.length > 0) {
    const secrets = Object.fromEntries(secretNames.map((name) => [name, instanceEnv[name]]));
    await writeAtomically(join(target, SECRETS_FILE), `${JSON.stringify(secrets, null, 2)}\n`);
    onDisk.instanceSecrets = { file: SECRETS_FILE, names: secretNames };
  }
  if (!state.instanceEnv) delete onDisk.instanceEnv;
  await writeAtomically(stackStatePath(target), `${compactNumbers(JSON.stringify(onDisk, null, 2))}\n`);
}

/**
 * Lists of numbers on one line: a recorded start holds thousands of request times, one a line
 * otherwise. Only a `[` that ends its line opens such a list: a JSON string holds no raw newline.
 */
function compactNumbers(json: string): string {
  const number = String.raw`-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?`;
  const list = new RegExp(String.raw`\[\n\s*(${number}(?:,\n\s*${number})*)\n\s*\]`, 'g');
  return json.replace(list, (_, items: string) => `[${items.replace(/,\n\s*/g, ',')}]`);
}

/** Removes the state file and its secrets (the stack is down). */
export async function removeStackState(target: string): Promise<void> {
  await rm(stackStatePath(target), { force: true });
  await rm(join(target, SECRETS_FILE), { force: true });
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
